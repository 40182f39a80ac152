import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderMcpHeaderTemplates } from './render-mcp-header-templates.ts';

function recordingLogger() {
  const lines: string[] = [];
  return {
    lines,
    warn: (message: string, fields?: unknown) => lines.push(`${message} ${JSON.stringify(fields)}`),
  };
}

test("templates are filled from the user's credentials", () => {
  const rendered = renderMcpHeaderTemplates(
    { Authorization: 'Bearer {token}', 'X-Team': '{team}-{region}', 'X-Static': 'plain' },
    { token: 'abc', team: 'red', region: 'eu' },
  );
  assert.deepEqual(rendered, {
    headers: { Authorization: 'Bearer abc', 'X-Team': 'red-eu', 'X-Static': 'plain' },
    missing: [],
  });
});

test('a header whose value is missing (absent or empty) is left out and logged by name, never half filled', () => {
  const logger = recordingLogger();
  const rendered = renderMcpHeaderTemplates(
    { Authorization: 'Bearer {token}', 'X-Key': '{api_key}', 'X-Ok': 'fine' },
    { api_key: '' },
    { logger },
  );
  assert.deepEqual(rendered, { headers: { 'X-Ok': 'fine' }, missing: ['token', 'api_key'] });
  assert.equal(logger.lines.length, 2);
  assert.match(logger.lines[0] ?? '', /Authorization.*token/);
});

test('braces inside values are never expanded a second time', () => {
  const rendered = renderMcpHeaderTemplates(
    { Authorization: 'Bearer {token}', 'X-Both': '{a}{b}' },
    { token: 'p{token}w{other}', other: 'LEAK', a: '{b}', b: 'B' },
  );
  assert.equal(rendered.headers.Authorization, 'Bearer p{token}w{other}');
  assert.equal(rendered.headers['X-Both'], '{b}B');
});

test('{{ and }} are literal braces; other braces are kept; inherited names are not values', () => {
  const rendered = renderMcpHeaderTemplates(
    { 'X-Json': '{{"k": "{v}"}}', 'X-Odd': 'a { b } {1x}', 'X-Proto': '{constructor}' },
    { v: '1' },
  );
  assert.equal(rendered.headers['X-Json'], '{"k": "1"}');
  assert.equal(rendered.headers['X-Odd'], 'a { b } {1x}');
  assert.equal(rendered.headers['X-Proto'], undefined);
  assert.deepEqual(rendered.missing, ['constructor']);
});
