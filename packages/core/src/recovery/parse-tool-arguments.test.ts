import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseToolArguments } from './parse-tool-arguments.ts';

describe('parseToolArguments', () => {
  it('keeps an object and parses a JSON string', () => {
    assert.deepEqual(parseToolArguments({ a: 1 }), { a: 1 });
    assert.deepEqual(parseToolArguments('{"a": 1}'), { a: 1 });
  });

  it('unwraps double-encoded JSON', () => {
    assert.deepEqual(parseToolArguments(JSON.stringify(JSON.stringify({ city: 'Oslo' }))), { city: 'Oslo' });
  });

  it('parses values that are JSON arrays or objects but keeps plain strings', () => {
    assert.deepEqual(
      parseToolArguments({ queries: '["a","b"]', filter: '{"x": 1}', note: 'hello', n: '42' }),
      {
        queries: ['a', 'b'],
        filter: { x: 1 },
        note: 'hello',
        n: '42',
      },
    );
    assert.deepEqual(parseToolArguments({ text: '[not json' }), { text: '[not json' });
  });

  it('removes NUL bytes and lone surrogates from every string, deep, keys included', () => {
    const parsed = parseToolArguments({
      'k\u0000ey': ['a\u0000b', { c: 'x\ud800y\udc00z' }],
      emoji: '\ud83d\ude00',
    });
    assert.deepEqual(parsed, { key: ['ab', { c: 'xyz' }], emoji: '\ud83d\ude00' });
  });

  it('repairs trailing commas and a truncated end', () => {
    assert.deepEqual(parseToolArguments('{"a": [1, 2,], "b": 3,}'), { a: [1, 2], b: 3 });
    assert.deepEqual(parseToolArguments('{"code": "print(1)\\n", "lines": [1, 2'), {
      code: 'print(1)\n',
      lines: [1, 2],
    });
    assert.deepEqual(parseToolArguments('{"code": "unfinished'), { code: 'unfinished' });
  });

  it('turns anything else into {}', () => {
    for (const raw of [
      null,
      undefined,
      42,
      true,
      [1, 2],
      '[1, 2]',
      'not json',
      '',
      '"just a string"',
      '{"a":',
    ]) {
      assert.deepEqual(parseToolArguments(raw), {}, String(raw));
    }
  });
});
