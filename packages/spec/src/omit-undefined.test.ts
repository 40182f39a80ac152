import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { omitUndefined } from './omit-undefined.ts';

interface StrictTarget {
  readonly name: string;
  readonly limit?: number;
  readonly signal?: AbortSignal;
}

function target(options: StrictTarget): StrictTarget {
  return { limit: 10, ...options };
}

describe('omitUndefined', () => {
  test('drops the undefined fields and keeps the rest, falsy values and null included', () => {
    const result = omitUndefined({ a: 1, b: undefined, c: 0, d: '', e: false, f: null });
    assert.deepEqual(result, { a: 1, c: 0, d: '', e: false, f: null });
    assert.equal(Object.hasOwn(result, 'b'), false);
  });

  test('satisfies a strict optional target, so a default merged under it survives', () => {
    const limit: number | undefined = undefined;
    const signal: AbortSignal | undefined = undefined;
    // Typed check: `{ name, limit, signal }` alone would not compile against StrictTarget.
    const merged = target(omitUndefined({ name: 'x', limit, signal }));
    assert.deepEqual(merged, { limit: 10, name: 'x' });
    assert.equal(target(omitUndefined({ name: 'x', limit: 3 })).limit, 3);
  });

  test('copies: the input is left as it was', () => {
    const input = { a: 1, b: undefined };
    const result = omitUndefined(input);
    assert.notEqual(result, input);
    assert.equal(Object.hasOwn(input, 'b'), true);
  });
});
