import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { maxToolNameLength, sanitizeToolName, toolNamePattern } from './tool-name.ts';

test('sanitizeToolName replaces what providers refuse and names the empty name', () => {
  assert.equal(sanitizeToolName('files.read/v2'), 'files_read_v2');
  assert.equal(sanitizeToolName('repos/get content.v2'), 'repos_get_content_v2');
  assert.equal(sanitizeToolName('already-valid_Name'), 'already-valid_Name');
  assert.equal(sanitizeToolName(''), 'tool');
});

test('a long name keeps 55 characters and an 8-digit hex hash of the whole original', () => {
  const long = `${'a'.repeat(70)}.one`;
  const cut = sanitizeToolName(long);
  assert.equal(cut.length, maxToolNameLength);
  assert.match(cut, /^a{55}_[0-9a-f]{8}$/);
  // The hash is FNV-1a over the original name: pinned, because stored and assembled names depend on it.
  assert.equal(cut, `${'a'.repeat(55)}_adc3be0d`);
  assert.notEqual(sanitizeToolName(`${'a'.repeat(70)}.two`), cut);
});

test('every result matches the provider pattern, and the same name always gives the same result', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), (name) => {
      const result = sanitizeToolName(name);
      assert.match(result, toolNamePattern);
      assert.equal(sanitizeToolName(name), result);
      if (toolNamePattern.test(name)) assert.equal(result, name);
    }),
  );
});
