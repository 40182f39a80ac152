// A turn whose storage failed is closed by its runner once the database answers again, while another process on
// the file closes it too (both read the turn before either writes): on SQLite, storage fails as another connection
// holding the write lock makes it (a write waits 5 s, then fails). The same race on PostgreSQL with the shared log:
// packages/redis/src/closers-after-failures.test.ts.

import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, before, test } from 'node:test';
import type { Storage } from '@toolbus/storage';
import {
  assertClosedOnceAfterFailure,
  otherEndsFirst,
  raceClosersAfterStorageFailure,
} from '../__fixtures__/storage-failure-race.ts';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { silentLogger } from '../server-logger.ts';
import { TurnRunner } from './turn-runner.ts';

const storages: Storage[] = [];
let path: string;
let userId: string;

before(async () => {
  const first = await openTestStorage();
  path = first.path;
  storages.push(first.storage, (await openTestStorage(path)).storage);
  userId = (await first.storage.users.create({ email: 'ada@example.com' })).id;
});
after(async () => {
  for (const storage of storages) await storage.close();
});

for (const closers of ['the runner alone', 'another closer too'] as const)
  test(`a turn storage failed, closed once storage is back by ${closers}: one closer's end, stored once`, async () => {
    const [runnerStorage, otherStorage] = storages as [Storage, Storage];
    const order = otherEndsFirst();
    const locker = new DatabaseSync(path);
    try {
      const { chatId, ended } = await raceClosersAfterStorageFailure({
        // No retry of a failed write: the first failure stops the turn.
        runner: new TurnRunner({
          storage: closers === 'the runner alone' ? runnerStorage : order.runner(runnerStorage),
          logger: silentLogger,
          storageRetry: { writeMs: 0 },
        }),
        ...(closers === 'another closer too' && {
          other: {
            closer: new TurnRunner({ storage: order.other(otherStorage), logger: silentLogger }),
            order,
          },
        }),
        storage: runnerStorage,
        userId,
        fail: () => locker.exec('BEGIN IMMEDIATE'),
        recover: () => locker.exec('ROLLBACK'),
      });
      assert.equal(ended, closers === 'the runner alone' ? 'runner' : 'other');
      await assertClosedOnceAfterFailure(runnerStorage, chatId, ended);
    } finally {
      locker.close();
    }
  });
