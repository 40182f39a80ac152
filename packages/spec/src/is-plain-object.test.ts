import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPlainObject } from './is-plain-object.ts';

test('isPlainObject: objects are, null, arrays and primitives are not', () => {
  assert.equal(isPlainObject({}), true);
  assert.equal(isPlainObject({ a: 1 }), true);
  assert.equal(isPlainObject(JSON.parse('{"b":[1]}')), true);
  for (const value of [null, undefined, [], [1], 'x', 1, true])
    assert.equal(isPlainObject(value), false, String(value));
});
