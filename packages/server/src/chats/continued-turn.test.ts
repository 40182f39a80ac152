// What a resumed Deep Research turn relies on in the runner: `persisted()` means every packet emitted before it
// is stored (so a checkpoint saved after it never runs ahead of the stream), and a turn that `continues` keeps its
// stored packets, hands them to its loop, and appends after them in one gap-free sequence.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ChatTurn, type ChatTurnResult, Emitter } from '@toolbus/core';
import type { Packet } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import { openTestStorageWithUser } from '../__fixtures__/test-server.ts';
import { silentLogger } from '../server-logger.ts';
import { type TurnRunContext, TurnRunner } from './turn-runner.ts';

let storage: Storage;
let userId: string;
before(async () => {
  ({ storage, userId } = await openTestStorageWithUser());
});
after(() => storage.close());

const finished: ChatTurnResult = {
  answer: 'done',
  stopReason: 'finished',
  messages: [{ role: 'assistant', content: 'done' }],
  citedDocuments: [],
  documents: new Map(),
  toolOutcomes: [],
  cycles: 1,
  recoveredToolCalls: 0,
};

/** A loop that runs `body` over its own emitter, then stops: the runner's input, as runDeepResearch is. */
function loop(body: (emitter: Emitter) => Promise<void>): ChatTurn {
  const emitter = new Emitter();
  const result = body(emitter).then(() => {
    emitter.emitAt({ turn: 9, tab: 0 }, { type: 'stop', reason: 'finished' });
    emitter.close();
    return finished;
  });
  return { result, [Symbol.asyncIterator]: () => emitter[Symbol.asyncIterator]() };
}

const delta = (content: string): Packet['obj'] => ({ type: 'message-delta', content });

test('persisted() resolves once every packet emitted before it is stored', async () => {
  const chat = await storage.chats.create({ userId });
  const runner = new TurnRunner({ storage, logger: silentLogger });
  const storedAtCheckpoints: number[] = [];
  const answers: boolean[] = [];
  const live = await runner.start({
    chatId: chat.id,
    userId,
    input: [{ role: 'user', content: 'q' }],
    run: (_signal, turn, context) =>
      loop(async (emitter) => {
        for (let round = 0; round < 3; round += 1) {
          for (let index = 0; index < 150; index += 1) emitter.emitAt({ turn: round, tab: 0 }, delta('x'));
          answers.push(await context.persisted());
          // Deltas queued together are stored as one packet: count the text stored, not the packets.
          const stored = await storage.chats.listPackets({ chatId: chat.id, turn, limit: 1000 });
          storedAtCheckpoints.push(
            stored.reduce(
              (sum, { packet }) => sum + ((packet as Packet).obj as { content: string }).content.length,
              0,
            ),
          );
        }
      }),
  });
  await live.ended;
  assert.deepEqual(answers, [true, true, true]);
  assert.deepEqual(storedAtCheckpoints, [150, 300, 450], 'everything emitted before each call was stored');
  const all = await storage.chats.listPackets({ chatId: chat.id, turn: live.index, limit: 1000 });
  assert.equal(live.lastSequence, all.length);
  assert.equal((all.at(-1)?.packet as Packet | undefined)?.obj.type, 'stop');
});

test('persisted() is false once the replica lost its hold on the turn', async () => {
  const chat = await storage.chats.create({ userId });
  const runner = new TurnRunner({ storage, logger: silentLogger });
  const record = await storage.chats.startTurn({ chatId: chat.id });
  let holds = true;
  let answer: boolean | undefined;
  const live = await runner.runRecorded({
    chatId: chat.id,
    userId,
    turn: record.index,
    input: [],
    held: async () => holds,
    run: (_signal, _turn, context) =>
      loop(async (emitter) => {
        emitter.emitAt({ turn: 0, tab: 0 }, delta('before'));
        holds = false;
        answer = await context.persisted();
      }),
  });
  await live.ended;
  assert.equal(answer, false);
});

test('a turn that continues publishes its stored packets first, hands them to its loop, and appends after them', async () => {
  const chat = await storage.chats.create({ userId });
  const record = await storage.chats.startTurn({ chatId: chat.id, kind: 'research' });
  const earlier: Packet[] = [0, 1, 2].map((index) => ({
    placement: { turn: index, tab: 0 },
    modelIndex: 0,
    obj: delta(`earlier ${index}`),
  }));
  await storage.chats.appendPackets({ chatId: chat.id, turn: record.index, packets: earlier });
  const runner = new TurnRunner({ storage, logger: silentLogger });
  let handed: TurnRunContext['earlier'] | undefined;
  const live = await runner.runRecorded({
    chatId: chat.id,
    userId,
    turn: record.index,
    kind: 'research',
    input: [{ role: 'user', content: 'q' }],
    continues: true,
    run: (_signal, _turn, context) => {
      handed = context.earlier;
      return loop(async (emitter) => {
        emitter.emitAt({ turn: 3, tab: 0 }, delta('resumed'));
      });
    },
  });
  // A follower of the live turn sees the earlier packets at once, under their stored sequences.
  const followed: number[] = [];
  for await (const packet of runner.follow(chat.id, record.index, 0)) followed.push(packet.sequence);
  await live.ended;
  assert.deepEqual(handed, earlier);
  assert.deepEqual(followed, [1, 2, 3, 4, 5]);
  const stored = await storage.chats.listPackets({ chatId: chat.id, turn: record.index });
  assert.deepEqual(
    stored.map((packet) => (packet.packet as Packet).obj),
    [...earlier.map((packet) => packet.obj), delta('resumed'), { type: 'stop', reason: 'finished' }],
  );
  assert.equal((await storage.chats.getTurn({ chatId: chat.id, turn: record.index }))?.status, 'completed');
});

test('text deltas queued in one pass are stored and followed as one packet each run, in order, with nothing lost', async () => {
  const chat = await storage.chats.create({ userId });
  const runner = new TurnRunner({ storage, logger: silentLogger });
  const live = await runner.start({
    chatId: chat.id,
    userId,
    input: [{ role: 'user', content: 'q' }],
    run: () =>
      loop(async (emitter) => {
        emitter.emitAt({ turn: 0, tab: 0 }, { type: 'message-start' });
        for (let index = 0; index < 40; index += 1) emitter.emitAt({ turn: 0, tab: 0 }, delta(`${index},`));
        emitter.emitAt({ turn: 0, tab: 0 }, { type: 'section-end' });
        emitter.emitAt({ turn: 1, tab: 0 }, delta('next'));
      }),
  });
  const followed: Packet['obj'][] = [];
  for await (const stored of runner.follow(chat.id, live.index, 0))
    followed.push((stored.packet as Packet).obj);
  const expected = Array.from({ length: 40 }, (_unused, index) => `${index},`).join('');
  assert.deepEqual(followed, [
    { type: 'message-start' },
    { type: 'message-delta', content: expected },
    { type: 'section-end' },
    { type: 'message-delta', content: 'next' },
    { type: 'stop', reason: 'finished' },
  ]);
  const replayed = await storage.chats.listPackets({ chatId: chat.id, turn: live.index, limit: 100 });
  assert.deepEqual(
    replayed.map(({ packet }) => (packet as Packet).obj),
    followed,
  );
});
