import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Storage } from '@toolbus/storage';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { PacketBatcher } from './packet-batcher.ts';

let storage: Storage;
before(async () => {
  ({ storage } = await openTestStorage());
});
after(async () => {
  await storage.close();
});

async function runningTurn(): Promise<string> {
  const user = await storage.users.create({ email: `${crypto.randomUUID()}@example.com` });
  const chat = await storage.chats.create({ userId: user.id });
  await storage.chats.startTurn({ chatId: chat.id });
  return chat.id;
}

test('turns written in one pass: each gets its own sequences, packets queued before the write join it', async () => {
  const batcher = new PacketBatcher(storage);
  const [first, second] = [await runningTurn(), await runningTurn()];
  const pending = [{ n: 1 }];
  const one = batcher.write(first, 0, () => pending.splice(0));
  const two = batcher.write(second, 0, () => [{ m: 1 }, { m: 2 }]);
  pending.push({ n: 2 });
  assert.deepEqual(await one, [
    { sequence: 1, packet: { n: 1 } },
    { sequence: 2, packet: { n: 2 } },
  ]);
  assert.deepEqual(await two, [
    { sequence: 1, packet: { m: 1 } },
    { sequence: 2, packet: { m: 2 } },
  ]);
  assert.deepEqual(await batcher.write(first, 0, () => [{ n: 3 }]), [{ sequence: 3, packet: { n: 3 } }]);
  assert.deepEqual(await batcher.write(first, 0, () => []), []);
  assert.equal((await storage.chats.listPackets({ chatId: first, turn: 0 })).length, 3);
});

test('a turn that is gone fails alone; the others of the pass are stored', async () => {
  const batcher = new PacketBatcher(storage);
  const kept = await runningTurn();
  const gone = await runningTurn();
  await storage.chats.delete(gone);
  const results = await Promise.allSettled([
    batcher.write(gone, 0, () => [{ lost: true }]),
    batcher.write(kept, 0, () => [{ kept: true }]),
  ]);
  assert.equal(results[0].status, 'rejected');
  assert.equal((results[0] as PromiseRejectedResult).reason.code, 'not_found');
  assert.deepEqual(results[1], { status: 'fulfilled', value: [{ sequence: 1, packet: { kept: true } }] });
});

test('with a flush window, packets queued during the window join the write; without one, the next pass writes', async () => {
  const windowed = new PacketBatcher(storage, { flushMs: 1_000 });
  const passed = new PacketBatcher(storage);
  const [slow, fast] = [await runningTurn(), await runningTurn()];
  const pending = { slow: [{ n: 1 }], fast: [{ n: 1 }] };
  const slowWrite = windowed.write(slow, 0, () => pending.slow.splice(0));
  const fastWrite = passed.write(fast, 0, () => pending.fast.splice(0));
  // Queued at the next pass: after the windowless batcher's write (immediates run in order), long before the
  // window's timer (a second, so that a loaded machine's stall cannot outlast it).
  setImmediate(() => {
    pending.slow.push({ n: 2 });
    pending.fast.push({ n: 2 });
  });
  assert.deepEqual(await slowWrite, [
    { sequence: 1, packet: { n: 1 } },
    { sequence: 2, packet: { n: 2 } },
  ]);
  assert.deepEqual(await fastWrite, [{ sequence: 1, packet: { n: 1 } }]);
});

test('flushes are spaced: a write soon after a flush waits for the next one, with what the passes between queue', async () => {
  const spaced = new PacketBatcher(storage, { spacingMs: 1_000 });
  const [one, two] = [await runningTurn(), await runningTurn()];
  const pending: { n: number }[] = [{ n: 1 }];
  // After a quiet spell (none yet), the next pass writes: a packet queued at that pass comes too late.
  const first = spaced.write(one, 0, () => pending.splice(0));
  setImmediate(() => pending.push({ n: 2 }));
  assert.deepEqual(await first, [{ sequence: 1, packet: { n: 1 } }]);
  // Right after that flush, the next waits (a second, longer than any stall of a loaded machine): what the passes
  // in between queue, this turn's and another's, joins it.
  const second = spaced.write(one, 0, () => pending.splice(0));
  let other: Promise<unknown> | undefined;
  setImmediate(() => {
    pending.push({ n: 3 });
    other = spaced.write(two, 0, () => [{ m: 1 }]);
  });
  assert.deepEqual(await second, [
    { sequence: 2, packet: { n: 2 } },
    { sequence: 3, packet: { n: 3 } },
  ]);
  assert.deepEqual(await other, [{ sequence: 1, packet: { m: 1 } }]);
});
