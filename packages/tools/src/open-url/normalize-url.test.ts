import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeUrl, webDocumentId } from './normalize-url.ts';

test('normalizeUrl: one form for the same page', () => {
  const cases: Array<[string, string | undefined]> = [
    ['HTTPS://Example.COM:443/Docs/?utm_source=x&utm_medium=y#top', 'https://example.com/Docs'],
    ['http://example.com:80', 'http://example.com/'],
    ['http://example.com:8080/a/', 'http://example.com:8080/a'],
    ['https://example.com/?b=2&a=1&gclid=9&fbclid=8&mc_cid=7&mc_eid=6', 'https://example.com/?a=1&b=2'],
    ['https://user:pass@example.com./x', 'https://example.com/x'],
    ['  https://example.com/search?q=a+b  ', 'https://example.com/search?q=a+b'],
    ['ftp://example.com/file', undefined],
    ['javascript:alert(1)', undefined],
    ['not a url', undefined],
  ];
  for (const [input, expected] of cases) assert.equal(normalizeUrl(input), expected, input);
  assert.equal(webDocumentId('https://example.com/'), 'web:https://example.com/');
});
