import assert from 'node:assert/strict';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDocumentIndex } from './document-index.ts';
import { indexPaths } from './index-paths.ts';

test('a signal stops the run after the file in flight, says how far it got, and removes nothing', async (t) => {
  const folder = await mkdtemp(join(tmpdir(), 'toolbus-index-stop-'));
  const index = await openDocumentIndex({ path: ':memory:' });
  t.after(async () => {
    await index.close();
    await rm(folder, { recursive: true, force: true });
  });
  for (const name of ['a.md', 'b.md', 'c.md', 'gone.md']) await writeFile(join(folder, name), `# ${name}\n`);
  await indexPaths({ index, paths: [folder] });
  await unlink(join(folder, 'gone.md'));
  await writeFile(join(folder, 'a.md'), '# a.md, changed\n');
  await writeFile(join(folder, 'a.png'), 'not looked at: its type alone');
  await writeFile(join(folder, 'b.txt'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13]));

  const controller = new AbortController();
  const progress: number[] = [];
  const stopped = await indexPaths({
    index,
    paths: [folder],
    signal: controller.signal,
    // Aborted while the second file (b.md) is in flight: it is finished, the third is not started.
    onProgress: ({ done }) => {
      progress.push(done);
      if (done === 1) queueMicrotask(() => controller.abort());
    },
  });
  assert.deepEqual(progress, [1, 2]);
  assert.equal(stopped.updated, 1, 'a.md');
  assert.equal(stopped.unchanged, 1, 'b.md');
  assert.equal(stopped.added, 0);
  assert.deepEqual(stopped.stopped, { done: 2, skipped: 0, failed: 0 });
  assert.equal(stopped.files, 4, 'a.md, b.md, b.txt and c.md are the run; a.png is not looked at');
  assert.equal(stopped.removed, 0, 'a run that did not see every file does not know which are gone');
  assert.equal((await index.counts()).documents, 4);

  const rest = await indexPaths({ index, paths: [folder] });
  assert.equal(rest.stopped, undefined);
  assert.equal(rest.unchanged, 3);
  assert.equal(rest.removed, 1, 'gone.md');
  assert.deepEqual(
    rest.skipped.map((item) => item.reason),
    ['unsupported', 'binary'],
  );
});
