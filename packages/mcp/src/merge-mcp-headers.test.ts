import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeMcpHeaders } from './merge-mcp-headers.ts';

test('later layers win, compared case-insensitively: request < connection < OAuth token', () => {
  const merged = mergeMcpHeaders({
    requestHeaders: { 'X-Trace': 'r', AUTHORIZATION: 'Bearer request', 'X-Only-Request': '1' },
    connectionHeaders: { 'x-trace': 'c', Authorization: 'Bearer config' },
    oauthAuthorization: 'Bearer oauth',
  });
  assert.deepEqual(merged, { 'x-trace': 'c', authorization: 'Bearer oauth', 'x-only-request': '1' });
});

test('request extras may not carry cookies or proxy credentials, but the admin config may set a cookie', () => {
  const warnings: string[] = [];
  const merged = mergeMcpHeaders(
    { requestHeaders: { Cookie: 'a=1', 'Proxy-Authorization': 'x' }, connectionHeaders: { Cookie: 'b=2' } },
    { logger: { warn: (_message, fields) => warnings.push(String(fields?.header)) } },
  );
  assert.deepEqual(merged, { cookie: 'b=2' });
  assert.deepEqual(warnings, ['"Cookie"', '"Proxy-Authorization"']);
});

test('no layer may set framing or MCP session headers', () => {
  const merged = mergeMcpHeaders({
    connectionHeaders: {
      Host: 'x',
      'Content-Length': '1',
      'mcp-protocol-version': '1999',
      'Last-Event-ID': '9',
    },
  });
  assert.deepEqual(merged, {});
});

test('names that are not HTTP tokens and values with CR, LF or NUL are dropped', () => {
  const merged = mergeMcpHeaders({
    requestHeaders: { 'X Space': 'a', 'X-Nul': 'a\0b', 'X-Lf': 'a\nb', 'X-Ok': 'fine value' },
  });
  assert.deepEqual(merged, { 'x-ok': 'fine value' });
});

test('an OAuth value carrying CR/LF is not used', () => {
  assert.deepEqual(
    mergeMcpHeaders({ connectionHeaders: { Authorization: 'k' }, oauthAuthorization: 'Bearer a\r\nX: y' }),
    { authorization: 'k' },
  );
});
