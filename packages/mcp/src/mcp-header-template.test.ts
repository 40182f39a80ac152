import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkMcpHeaderTemplate,
  mcpBuiltInValues,
  mcpCredentialValuesProblem,
} from './mcp-header-template.ts';
import { mergeMcpHeaders } from './merge-mcp-headers.ts';

test('a template keeps its headers, lists the placeholders users fill, and drops deny-listed names by name', () => {
  const warnings: string[] = [];
  const checked = checkMcpHeaderTemplate(
    {
      Authorization: 'Bearer {api_key}',
      'X-User': '{user_email}',
      'X-Team': '{team}-{region}',
      Host: '{api_key}.example',
      'Content-Length': '{n}',
      'Bad Name': '{x}',
    },
    { logger: { warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields)}`) } },
  );
  assert.deepEqual(checked.headers, {
    Authorization: 'Bearer {api_key}',
    'X-User': '{user_email}',
    'X-Team': '{team}-{region}',
  });
  assert.deepEqual(checked.placeholders, ['api_key', 'team', 'region']);
  assert.deepEqual(checked.dropped, [
    { header: '"Host"', reason: 'denylisted' },
    { header: '"Content-Length"', reason: 'denylisted' },
    { header: '"Bad Name"', reason: 'invalid-name' },
  ]);
  assert.equal(warnings.length, 3);
  assert.match(warnings[0] ?? '', /Host/);
  assert.deepEqual(checked.problems, []);
});

test('a template header with no placeholder is refused: a fixed value is a secret in the clear', () => {
  const checked = checkMcpHeaderTemplate({ Authorization: 'Bearer sk-live-1', 'X-Json': '{{"a":1}}' });
  assert.equal(checked.problems.length, 2);
  assert.match(checked.problems[0] ?? '', /"Authorization" has no \{placeholder\}/);
  assert.doesNotMatch(checked.problems.join(' '), /sk-live-1/);
});

test("a user's values: CR/LF and other bytes a header cannot carry are refused, naming the placeholder only", () => {
  assert.equal(mcpCredentialValuesProblem({ api_key: 'abc', 'team.name': 'red' }), undefined);
  for (const bad of ['a\r\nX-Injected: 1', 'a\nb', 'nul\u0000', 'bell\u0007']) {
    const problem = mcpCredentialValuesProblem({ api_key: bad }) ?? '';
    assert.match(problem, /value for \{api_key\} contains a line break \(CR\/LF\) or another byte/);
    assert.ok(!problem.includes(bad));
  }
  assert.match(
    mcpCredentialValuesProblem({ user_email: 'x@y' }) ?? '',
    /\{user_email\} is filled by toolbus/,
  );
  assert.match(mcpCredentialValuesProblem({ '{x}': 'v' }) ?? '', /is not a placeholder name/);
  assert.match(mcpCredentialValuesProblem({ k: 'v'.repeat(8193) }) ?? '', /longer than 8192/);
});

test('built-ins come from the user; the template layer wins over connection headers, OAuth over both', () => {
  assert.deepEqual(mcpBuiltInValues({ id: 'u1', email: 'a@b', name: null }), {
    user_id: 'u1',
    user_email: 'a@b',
  });
  const merged = mergeMcpHeaders({
    requestHeaders: { 'X-A': 'request', 'X-B': 'request' },
    connectionHeaders: { 'x-a': 'connection', 'X-C': 'connection' },
    templateHeaders: { 'X-A': 'template', 'X-C': 'template', Authorization: 'Bearer template' },
    oauthAuthorization: 'Bearer oauth',
  });
  assert.deepEqual(merged, {
    'x-a': 'template',
    'x-b': 'request',
    'x-c': 'template',
    authorization: 'Bearer oauth',
  });
});
