import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createDirectoryFileStore } from './directory-file-store.ts';

test('files are written under random ids and read back; other ids are refused', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'toolbus-openapi-files-'));
  try {
    const store = createDirectoryFileStore({ directory: join(directory, 'files') });
    const bytes = new Uint8Array([0, 1, 2, 250]);
    const reference = await store.save({ name: '../../escape.png', mediaType: 'image/png', bytes });
    assert.match(reference.fileId, /^[0-9a-f-]{36}$/);
    assert.deepEqual(reference, {
      fileId: reference.fileId,
      name: '../../escape.png',
      mediaType: 'image/png',
      sizeBytes: 4,
    });
    assert.deepEqual((await readdir(join(directory, 'files'))).sort(), [
      reference.fileId,
      `${reference.fileId}.json`,
    ]);
    assert.deepEqual(await store.get(reference.fileId), {
      name: '../../escape.png',
      mediaType: 'image/png',
      bytes,
    });
    assert.equal(await store.get('../files'), undefined);
    assert.equal(await store.get('00000000-0000-0000-0000-000000000000'), undefined);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});
