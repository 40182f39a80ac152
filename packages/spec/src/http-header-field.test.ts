import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dropIllegalHeaders, illegalHeaderReason, isLegalHeaderValue } from './http-header-field.ts';

test('values HTTP forbids: controls but tab, DEL, anything above U+00FF; Latin-1 and tab are legal', () => {
  for (const value of ['a\rb', 'a\nb', 'a\0b', 'a\x01b', 'a\x7fb', 'a\u0100b', 'caf\u00e9 \u2615'])
    assert.equal(isLegalHeaderValue(value), false, JSON.stringify(value));
  for (const value of ['Bearer abc', 'a\tb', 'caf\u00e9', ''])
    assert.equal(isLegalHeaderValue(value), true, JSON.stringify(value));
  assert.equal(isLegalHeaderValue(1), false);
});

test('every value the predicate accepts is one Headers accepts (so a kept header cannot fail a request)', () => {
  for (let code = 0; code <= 0x110; code += 1) {
    const value = `a${String.fromCharCode(code)}b`;
    if (isLegalHeaderValue(value)) assert.doesNotThrow(() => new Headers([['x-test', value]]), String(code));
  }
});

test('dropIllegalHeaders keeps the legal ones in order and names the dropped ones, JSON-escaped, without values', () => {
  const { legal, dropped } = dropIllegalHeaders([
    ['X-Ok', 'one'],
    ['X-Bad', 'secret\u0100'],
    ['X\r\nForged', 'v'],
    ['X-Ok-2', 'two'],
  ]);
  assert.deepEqual(legal, [
    ['X-Ok', 'one'],
    ['X-Ok-2', 'two'],
  ]);
  assert.deepEqual(dropped, [
    { header: '"X-Bad"', reason: 'invalid-value' },
    { header: '"X\\r\\nForged"', reason: 'invalid-name' },
  ]);
  assert.equal(illegalHeaderReason('X-Ok', 'fine'), undefined);
});
