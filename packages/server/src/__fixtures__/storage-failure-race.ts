// A turn whose storage fails mid-answer is closed by its runner once storage answers again, while another closer (a
// replica that took the turn over when the runner's hold lapsed) closes it at the same moment: both read the stored
// turn before either writes (readingTogether). Whoever ends it, the turn's closing packets and answer are stored
// once. Run on SQLite (chats/storage-failure-race.test.ts) and on PostgreSQL with Redis (packages/redis).
import assert from 'node:assert/strict';
import { type ChatTurn, type ChatTurnResult, Emitter } from '@toolbus/core';
import { foldAnswer, type Packet } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import type { TurnRunContext, TurnRunner } from '../chats/turn-runner.ts';
import { STORAGE_FAILED_TURN_REASON, WORKER_LOST_TURN_REASON } from '../chats/turn-reasons.ts';
import { deadTurnAnswer, objectsOf } from './closers-at-once.ts';

/** The deployment the race runs on. */
export interface StorageFailureRace {
  /** The runner whose storage fails, its storage wrapped by `order.runner`. */
  readonly runner: TurnRunner;
  /** The other closer, its storage (another connection) wrapped by `order.other`; none: the runner closes alone. */
  readonly other?: { readonly closer: TurnRunner; readonly order: OtherEndsFirst };
  /** What the test reads storage through (no gate). */
  readonly storage: Storage;
  readonly userId: string;
  /** Makes the runner's storage fail its writes from now on. */
  fail(): void;
  /** Makes it answer again. */
  recover(): void;
}

/**
 * Orders the two closers as a lapsed hold lets them race: the runner reads the stored turn, then the other closer
 * reads it and ends it, and only then does the runner write what it decided. Nothing waits before {@link start}
 * (the runner's own writes and their retries pass).
 */
export interface OtherEndsFirst {
  /** Wraps the runner's storage. */
  runner(storage: Storage): Storage;
  /** Wraps the other closer's storage. */
  other(storage: Storage): Storage;
  /** The closers start (storage is back). */
  start(): void;
}

export function otherEndsFirst(): OtherEndsFirst {
  let started = false;
  const runnerRead = signal();
  const otherEnded = signal();
  const afterOtherEnded =
    <Options, Result>(write: (options: Options) => Promise<Result>) =>
    async (options: Options) => {
      if (started) await otherEnded.promise;
      return write(options);
    };
  return {
    runner: (storage) =>
      withChats(storage, {
        listPackets: async (options) => {
          const packets = await storage.chats.listPackets(options);
          if (started) runnerRead.resolve();
          return packets;
        },
        appendPackets: afterOtherEnded((options) => storage.chats.appendPackets(options)),
        finishTurn: afterOtherEnded((options) => storage.chats.finishTurn(options)),
      }),
    other: (storage) =>
      withChats(storage, {
        listPackets: async (options) => {
          if (started) await runnerRead.promise;
          return storage.chats.listPackets(options);
        },
        finishTurn: (options) => storage.chats.finishTurn(options).finally(() => otherEnded.resolve()),
      }),
    start: () => {
      started = true;
    },
  };
}

/** A promise and what resolves it. */
function signal(): { readonly promise: Promise<void>; resolve(): void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve: () => resolve() };
}

/** `storage` with some of its chat store's methods replaced (each calling the original). */
function withChats(storage: Storage, methods: Partial<Storage['chats']>): Storage {
  const chats = new Proxy(storage.chats, {
    get: (target, key) => (key in methods ? methods[key as keyof typeof methods] : Reflect.get(target, key)),
  });
  return new Proxy(storage, { get: (target, key) => (key === 'chats' ? chats : Reflect.get(target, key)) });
}

const question = { role: 'user' as const, content: 'Refunds?' };
const at = { turn: 0, tab: 0 };

/** A loop that runs `body` over its own emitter, then stops, as the agent loop does. */
function loop(body: (emitter: Emitter) => Promise<void>): ChatTurn {
  const emitter = new Emitter();
  const result = body(emitter).then((): ChatTurnResult => {
    emitter.emitAt(at, { type: 'stop', reason: 'finished' });
    emitter.close();
    return {
      answer: deadTurnAnswer,
      stopReason: 'finished',
      messages: [{ role: 'assistant', content: deadTurnAnswer }],
      citedDocuments: [],
      documents: new Map(),
      toolOutcomes: [],
      cycles: 1,
      recoveredToolCalls: 0,
    };
  });
  return { result, [Symbol.asyncIterator]: () => emitter[Symbol.asyncIterator]() };
}

/** The turn's loop: an answer begun and a tool call open, then storage fails; returns once the loop is stopped. */
async function answerUntilStopped(
  emitter: Emitter,
  signal: AbortSignal,
  context: TurnRunContext,
  race: StorageFailureRace,
): Promise<void> {
  emitter.emitAt(at, { type: 'message-start' });
  emitter.emitAt(at, { type: 'message-delta', content: deadTurnAnswer });
  emitter.emitAt(at, {
    type: 'tool-start',
    toolCallId: 'c1',
    toolName: 'lookup',
    displayName: 'Lookup',
    arguments: { query: 'refunds' },
  });
  assert.equal(await context.persisted(), true);
  race.fail();
  emitter.emitAt(at, { type: 'message-delta', content: ' Never stored.' });
  // The write fails beyond its retry window: the runner stops the loop.
  await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
  race.recover();
  race.other?.order.start();
}

/**
 * Runs the race in a new chat: the turn answers, opens a tool call, and its next write fails for good (the loop is
 * stopped); storage recovers, and the runner and the other closer close the turn in {@link otherEndsFirst}'s
 * order. Which one ended it.
 */
export async function raceClosersAfterStorageFailure(
  race: StorageFailureRace,
): Promise<{ chatId: string; ended: 'runner' | 'other' }> {
  const chat = await race.storage.chats.create({ userId: race.userId });
  let stopped: (error?: unknown) => void = () => {};
  const halted = new Promise<void>((resolve, reject) => {
    stopped = (error) => (error === undefined ? resolve() : reject(error));
  });
  const live = await race.runner.start({
    chatId: chat.id,
    userId: race.userId,
    input: [question],
    run: (signal, _turn, context) =>
      loop((emitter) => answerUntilStopped(emitter, signal, context, race).then(stopped, stopped)),
  });
  await halted;
  const record = await race.storage.chats.getTurn({ chatId: chat.id, turn: live.index });
  assert.ok(record);
  const otherClosed = await race.other?.closer.closeInterrupted(record, WORKER_LOST_TURN_REASON);
  await live.ended;
  return { chatId: chat.id, ended: otherClosed ? 'other' : 'runner' };
}

/**
 * The turn as the race left it, whoever ended it: that closer's status, closing packets and answer, once each,
 * the answer the stream showed once, one `stop`, last. Returns the stored packets.
 */
export async function assertClosedOnceAfterFailure(
  storage: Storage,
  chatId: string,
  ended: 'runner' | 'other',
): Promise<readonly Packet['obj'][]> {
  const [status, reason] =
    ended === 'runner'
      ? ['failed', STORAGE_FAILED_TURN_REASON]
      : ['interrupted', WORKER_LOST_TURN_REASON];
  const turn = await storage.chats.getTurn({ chatId, turn: 0 });
  assert.deepEqual([turn?.status, turn?.endReason], [status, reason]);
  const packets = await storage.chats.listPackets({ chatId, turn: 0 });
  assert.deepEqual(
    packets.map((packet) => packet.sequence),
    packets.map((_, index) => index + 1),
  );
  const objs = objectsOf(packets);
  assert.deepEqual(
    objs.map((obj) => obj.type),
    [
      'message-start',
      'message-delta',
      'tool-start',
      ...(ended === 'runner' ? ['error'] : []),
      'error',
      'tool-end',
      'section-end',
      'stop',
    ],
    'the closing packets of one closer',
  );
  if (ended === 'runner') assert.equal((objs[3] as { code?: string }).code, 'storage_unavailable');
  assert.deepEqual(foldAnswer(packets.map((packet) => packet.packet as Packet)).messages, [deadTurnAnswer]);
  const history = (await storage.chats.listMessages(chatId)).map((stored) => stored.message);
  assert.deepEqual(history, [
    question,
    { role: 'assistant', content: `${deadTurnAnswer}\n\n[This answer was interrupted: ${reason}]` },
  ]);
  return objs;
}
