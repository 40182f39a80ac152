import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getHeapStatistics } from 'node:v8';
import { releaseMemoryAtRest } from './release-memory-at-rest.ts';

test('memory is released once per rest: after two quiet looks, never while turns run, again only after growth', () => {
  let busy = false;
  let heap = 100 * 2 ** 20;
  let releases = 0;
  const watcher = releaseMemoryAtRest({
    busy: () => busy,
    heapBytes: () => heap,
    release: () => {
      releases += 1;
      heap = 40 * 2 ** 20;
    },
    checkEveryMs: 0,
  });
  // A server that just started: the first quiet look only notes the quiet, the second releases.
  assert.equal(watcher.check(), false);
  assert.equal(watcher.check(), true);
  assert.equal(releases, 1);
  // Still at rest, the heap as the release left it: nothing to do.
  assert.equal(watcher.check(), false);
  // Under load the heap grows, and nothing is released while a turn runs.
  busy = true;
  heap = 300 * 2 ** 20;
  assert.equal(watcher.check(), false);
  assert.equal(watcher.check(), false);
  // The load ends: one quiet look is not a rest yet (a turn may start at once), the next releases.
  busy = false;
  assert.equal(watcher.check(), false);
  assert.equal(watcher.check(), true);
  assert.equal(releases, 2);
  // A rest after load where the heap hardly grew (less than 4 MiB) releases nothing.
  busy = true;
  watcher.check();
  busy = false;
  heap += 2 ** 20;
  assert.equal(watcher.check(), false);
  assert.equal(watcher.check(), false);
  assert.equal(releases, 2);
  watcher.stop();
});

test('the default release shrinks the heap V8 grew (its young generation and swept pages)', () => {
  // Garbage that survives a few scavenges grows the young generation, as a server under load does.
  let keep: object[] = [];
  for (let round = 0; round < 40; round += 1) {
    for (let index = 0; index < 20_000; index += 1) keep.push({ round, index, text: `packet ${index}` });
    if (keep.length > 200_000) keep = [];
  }
  keep = [];
  const before = getHeapStatistics().total_heap_size;
  const watcher = releaseMemoryAtRest({ busy: () => false, checkEveryMs: 0 });
  watcher.check();
  assert.equal(watcher.check(), true);
  const after = getHeapStatistics().total_heap_size;
  assert.ok(after < before - 4 * 2 ** 20, `heap ${before} → ${after} bytes: nothing was given back`);
  watcher.stop();
});
