import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FRAMING_HEADERS } from '@toolbus/spec';
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
      ...Object.fromEntries(FRAMING_HEADERS.map((name) => [name, 'x'])),
    },
  });
  assert.deepEqual(merged, {});
  assert.ok(FRAMING_HEADERS.includes('transfer-encoding') && FRAMING_HEADERS.includes('expect'));
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

test('no layer may set encoding, content, hop-by-hop or target-rewriting headers', () => {
  const names = [
    'Content-Type',
    'Content-Encoding',
    'Content-Disposition',
    'Accept-Encoding',
    'HTTP2-Settings',
    'Keep-Alive',
    'TE',
    'Trailer',
    'Upgrade',
    'X-Original-URL',
    'X-Rewrite-URL',
    'X-Override-URL',
    'X-Original-Host',
    'X-Forwarded-Host',
    'X-Forwarded-Prefix',
    'X-Forwarded-Anything',
    'Forwarded',
    'X-HTTP-Method-Override',
  ];
  const headers = Object.fromEntries(names.map((name) => [name, 'v']));
  const warnings: string[] = [];
  const merged = mergeMcpHeaders(
    { requestHeaders: headers, connectionHeaders: { ...headers, 'X-Api-Key': 'k' } },
    { logger: { warn: (_message, fields) => warnings.push(String(fields?.header)) } },
  );
  assert.deepEqual(merged, { 'x-api-key': 'k' });
  assert.equal(warnings.length, names.length * 2);
});

test('a value with a byte HTTP forbids is dropped and logged by name; the other headers still go', () => {
  const warnings: string[] = [];
  const merged = mergeMcpHeaders(
    {
      connectionHeaders: {
        'X-Del': 'a\x7fb',
        'X-Wide': 'caf\u0113',
        'X-Emoji': '\u{1F600}',
        'X-Control': 'a\x01b',
        'X-Latin1': 'caf\u00e9',
        'X-Tab': 'a\tb',
      },
      oauthAuthorization: 'Bearer \u0100',
    },
    { logger: { warn: (_message, fields) => warnings.push(`${fields?.header}:${fields?.reason}`) } },
  );
  assert.deepEqual(merged, { 'x-latin1': 'caf\u00e9', 'x-tab': 'a\tb' });
  assert.deepEqual(warnings, [
    '"X-Del":invalid-value',
    '"X-Wide":invalid-value',
    '"X-Emoji":invalid-value',
    '"X-Control":invalid-value',
    '"Authorization":invalid-value',
  ]);
  // What is left can always be sent: Headers refuses anything above U+00FF with a TypeError.
  assert.doesNotThrow(() => new Headers(merged));
});
