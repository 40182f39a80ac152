import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryDirectories } from './__fixtures__/temporary-directories.ts';
import { resolveSecretKey } from './resolve-secret-key.ts';

const temporaryDirectory = temporaryDirectories('toolbus-secret-key-').directory;

test('a key file in a folder that does not exist yet is created with its folder, readable by its owner only', () => {
  const folder = join(temporaryDirectory(), 'home', '.toolbus');
  const keyFile = join(folder, 'secret.key');
  const key = resolveSecretKey({ secretKeyFile: keyFile, environment: {} });
  assert.equal(key.byteLength, 32);
  assert.equal(statSync(keyFile).mode & 0o777, 0o600);
  assert.equal(statSync(folder).mode & 0o777, 0o700);
  // The second read finds the file the first wrote.
  assert.deepEqual(resolveSecretKey({ secretKeyFile: keyFile, environment: {} }), key);
});
