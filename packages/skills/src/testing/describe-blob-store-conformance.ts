import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { BlobStore } from '../blob-store.ts';
import { SkillBundleError } from '../skill-bundle-error.ts';

/** What the blob store conformance suite needs of a backend. */
export interface BlobStoreUnderTest {
  /** Names the backend in the suite's titles. */
  readonly name: string;
  /** Opens a fresh, empty store; `close` releases what it holds. */
  openBlobStore(): Promise<{ readonly blobStore: BlobStore; close(): Promise<void> }>;
}

async function bytesOf(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const pieces: Uint8Array[] = [];
  for await (const piece of stream) pieces.push(piece);
  return Buffer.concat(pieces);
}

/**
 * The blob store's contract, the same on every backend (the filesystem folder, the SQL table): bytes read back as
 * written, writes replace atomically, a failed write leaves nothing, and keys that could escape are refused.
 */
export function describeBlobStoreConformance(backend: BlobStoreUnderTest): void {
  describe(`${backend.name} blob store`, () => {
    test('bytes read back as written, from one piece or a stream; a second put replaces the first', async (t) => {
      const { blobStore, close } = await backend.openBlobStore();
      t.after(close);
      const large = Buffer.alloc(700_000, 7);
      large[0] = 0;
      large[large.length - 1] = 255;
      assert.deepEqual(await blobStore.put('skills/pdf/a1.zip', large), { size: large.length });
      assert.deepEqual(await bytesOf(await blobStore.get('skills/pdf/a1.zip')), large);
      async function* pieces() {
        yield Buffer.from('first ');
        yield new Uint8Array([0, 1, 2]);
      }
      assert.deepEqual(await blobStore.put('skills/pdf/a1.zip', pieces()), { size: 9 });
      assert.deepEqual(
        await bytesOf(await blobStore.get('skills/pdf/a1.zip')),
        Buffer.concat([Buffer.from('first '), Buffer.from([0, 1, 2])]),
      );
      assert.equal(await blobStore.has('skills/pdf/a1.zip'), true);
      assert.deepEqual(await blobStore.put('skills/empty.zip', new Uint8Array()), { size: 0 });
      assert.deepEqual(await bytesOf(await blobStore.get('skills/empty.zip')), Buffer.alloc(0));
    });

    test('a missing blob is blob_not_found; delete removes, and resolves without one', async (t) => {
      const { blobStore, close } = await backend.openBlobStore();
      t.after(close);
      await assert.rejects(
        blobStore.get('skills/none.zip'),
        (error: unknown) => SkillBundleError.isInstance(error) && error.code === 'blob_not_found',
      );
      assert.equal(await blobStore.has('skills/none.zip'), false);
      await blobStore.put('skills/x.zip', Buffer.from('x'));
      await blobStore.delete('skills/x.zip');
      await blobStore.delete('skills/x.zip');
      assert.equal(await blobStore.has('skills/x.zip'), false);
    });

    test('a write that fails midway leaves nothing under the key, nor changes the blob there', async (t) => {
      const { blobStore, close } = await backend.openBlobStore();
      t.after(close);
      async function* failing() {
        yield Buffer.from('partial');
        throw new Error('upload interrupted');
      }
      await assert.rejects(blobStore.put('skills/x/blob.zip', failing()), /upload interrupted/);
      assert.equal(await blobStore.has('skills/x/blob.zip'), false);
      await blobStore.put('skills/x/blob.zip', Buffer.from('whole'));
      await assert.rejects(blobStore.put('skills/x/blob.zip', failing()), /upload interrupted/);
      assert.deepEqual(await bytesOf(await blobStore.get('skills/x/blob.zip')), Buffer.from('whole'));
    });

    test('keys that could escape or are not lowercase paths are refused', async (t) => {
      const { blobStore, close } = await backend.openBlobStore();
      t.after(close);
      for (const key of ['../x', 'a/../../x', '/etc/passwd', 'a//b', '.hidden', 'a/.b', 'Upper', '']) {
        await assert.rejects(blobStore.put(key, Buffer.from('x')), TypeError, key);
        await assert.rejects(blobStore.get(key), TypeError, key);
        await assert.rejects(blobStore.delete(key), TypeError, key);
        assert.equal(await blobStore.has(key), false, key);
      }
    });
  });
}
