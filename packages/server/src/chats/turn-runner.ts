import { randomUUID } from 'node:crypto';
import type { Packet } from '@toolbus/spec';
import type { ChatTurnRecord, Storage, StoredPacket } from '@toolbus/storage';
import { ServerError } from '../http/server-error.ts';
import type { ScaleOutBackend } from '../scale-out/scale-out-backend.ts';
import { InProcessTurnSlots, type TurnSlots } from '../scale-out/turn-slots.ts';
import type { ServerLogger } from '../server-logger.ts';
import { LiveTurn } from './live-turn.ts';
import { PacketBatcher } from './packet-batcher.ts';
import type { StartTurnOptions } from './start-turn-options.ts';
import { DEFAULT_STORAGE_CLOSE_RETRY_MS, DEFAULT_STORAGE_RETRY_MS, retryStorage } from './storage-retry.ts';
import { closingPackets, errorCode, interruptedAnswer } from './turn-closing.ts';
import { TurnDrive, type TurnDriveContext } from './turn-drive.ts';
import { TurnPacketReader } from './turn-packet-reader.ts';
import { ABANDONED_TURN_REASON, INTERRUPTED_TURN_REASON, shutdownSignal } from './turn-reasons.ts';

export type { StartTurnOptions, TurnRunContext } from './start-turn-options.ts';
export {
  ABANDONED_TURN_REASON,
  INTERRUPTED_TURN_REASON,
  NOT_QUEUED_TURN_REASON,
  SHUTDOWN_TURN_REASON,
  STORAGE_FAILED_TURN_REASON,
  WORKER_LOST_TURN_REASON,
} from './turn-reasons.ts';

/** The single-flight lock that lets one replica at a time sweep abandoned turns. */
const abandonedSweepLock = 'abandoned-turn-sweep';
const abandonedSweepLockMs = 5 * 60_000;

/**
 * Runs turns detached from any HTTP connection: a client that disconnects does not stop a turn, `stop` does.
 * Every packet is persisted before a follower sees it (in batches, one transaction per event-loop pass), and the
 * turn's end and history are written together when it ends.
 */
export class TurnRunner {
  readonly #storage: Storage;
  readonly #logger: ServerLogger;
  readonly #live = new Map<string, LiveTurn>();
  readonly #scaleOut: ScaleOutBackend | undefined;
  readonly #slots: TurnSlots;
  readonly #drives: TurnDriveContext;
  readonly #reader: TurnPacketReader;
  /** Aborted when the server closes: retries of writes and of the shared log stop. */
  readonly #closing = new AbortController();
  #unsubscribe: (() => Promise<void>) | undefined;

  constructor(options: {
    readonly storage: Storage;
    readonly logger: ServerLogger;
    /** Shared by replicas: packets, stops and slots (default: this process only). */
    readonly scaleOut?: ScaleOutBackend | undefined;
    /** How long packets wait to be stored with others (see {@link PacketBatcher}); default 0, the next pass. */
    readonly packetFlushMs?: number | undefined;
    /**
     * How long a turn's failed writes are retried before the turn is stopped (default 30 s), and how long such a
     * turn then waits for storage to write its end (default 10 min).
     */
    readonly storageRetry?: { readonly writeMs?: number; readonly closeMs?: number } | undefined;
  }) {
    this.#storage = options.storage;
    this.#logger = options.logger;
    this.#scaleOut = options.scaleOut;
    this.#slots = options.scaleOut?.slots ?? new InProcessTurnSlots();
    this.#reader = new TurnPacketReader({ storage: options.storage, logger: options.logger });
    this.#drives = {
      storage: options.storage,
      logger: options.logger,
      slots: this.#slots,
      batcher: new PacketBatcher(options.storage, { flushMs: options.packetFlushMs ?? 0 }),
      scaleOut: options.scaleOut,
      storageRetry: {
        writeMs: options.storageRetry?.writeMs ?? DEFAULT_STORAGE_RETRY_MS,
        closeMs: options.storageRetry?.closeMs ?? DEFAULT_STORAGE_CLOSE_RETRY_MS,
      },
      closing: this.#closing.signal,
      ended: (live) => this.#live.delete(keyOf(live.chatId, live.index)),
    };
  }

  /** Starts listening to stop requests of other replicas (a no-op without a shared backend). */
  async listen(): Promise<void> {
    if (!this.#scaleOut || this.#unsubscribe) return;
    this.#unsubscribe = await this.#scaleOut.stops.subscribe((chatId, turn) => {
      this.live(chatId, turn)?.controller.abort();
    });
  }

  /** Takes one of the user's concurrent-turn slots; the holder to pass as `slot`, or undefined over the limit. */
  async acquireSlot(userId: string, limit: number): Promise<string | undefined> {
    const holder = crypto.randomUUID();
    return (await this.#slots.acquire(userId, holder, limit)) ? holder : undefined;
  }

  /** Frees a slot a turn that never started held. */
  async releaseSlot(userId: string, holder: string): Promise<void> {
    await this.#slots.release(userId, holder);
  }

  /** Number of turns running in this process. */
  get running(): number {
    return this.#live.size;
  }

  /** Running turns of one user (for the concurrency limit). */
  runningFor(userId: string): number {
    let count = 0;
    for (const turn of this.#live.values()) if (turn.userId === userId) count += 1;
    return count;
  }

  /** Records the turn and starts it; resolves as soon as it runs (not when it ends). */
  async start(options: StartTurnOptions): Promise<LiveTurn> {
    const record = await this.#storage.chats.startTurn({
      chatId: options.chatId,
      kind: options.kind ?? 'chat',
      input: options.input,
    });
    return this.runRecorded({ ...options, turn: record.index });
  }

  /** Runs a turn already recorded (a queued turn a worker took); resolves as soon as it runs. */
  async runRecorded(options: StartTurnOptions & { readonly turn: number }): Promise<LiveTurn> {
    const live = new LiveTurn({ chatId: options.chatId, index: options.turn, userId: options.userId });
    const earlier: StoredPacket[] = [];
    if (options.continues) {
      for await (const packet of this.#reader.replay(options.chatId, options.turn, 0)) earlier.push(packet);
      // The dead replica may have stored packets it never appended to the shared log: followers elsewhere read
      // them there before this run's packets.
      await this.#logMissing(options.chatId, options.turn, earlier);
      live.publish(earlier);
      this.#logger.warn('turn.resumed', {
        chatId: options.chatId,
        turn: options.turn,
        packets: earlier.length,
      });
    }
    this.#live.set(keyOf(options.chatId, options.turn), live);
    this.#logger.info('turn.start', { chatId: options.chatId, turn: options.turn, userId: options.userId });
    // A stop asked for while the turn was queued: it starts stopped (and ends at once, as a stopped turn).
    if (this.#scaleOut && (await this.#scaleOut.stops.requested(options.chatId, options.turn))) {
      live.controller.abort();
    }
    const drive = new TurnDrive(
      this.#drives,
      live,
      options,
      earlier.map((stored) => stored.packet as Packet),
    );
    void drive.run();
    return live;
  }

  /** The live turn, when it runs in this process. */
  live(chatId: string, turn: number): LiveTurn | undefined {
    return this.#live.get(keyOf(chatId, turn));
  }

  /** Stops a running turn (model stream and tools are aborted); false when it is not running here. */
  stop(chatId: string, turn: number): boolean {
    const live = this.live(chatId, turn);
    if (!live || live.done) return false;
    live.controller.abort();
    return true;
  }

  /**
   * Stops a turn wherever it runs and waits until its end is written; false when it is not running. Without a
   * shared backend this is {@link stop} and the wait for its end.
   */
  async stopAnywhere(chatId: string, turn: number, timeoutMs = 30_000): Promise<boolean> {
    const live = this.live(chatId, turn);
    if (live) {
      if (!this.stop(chatId, turn)) return false;
      await live.ended;
      return true;
    }
    if (!this.#scaleOut) return false;
    const record = await this.#storage.chats.getTurn({ chatId, turn });
    if (record?.status !== 'running') return false;
    await this.#scaleOut.stops.request(chatId, turn);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const now = await this.#storage.chats.getTurn({ chatId, turn });
      if (now?.status !== 'running') return true;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return true;
  }

  /**
   * Checks a resume cursor before any byte is streamed: `not_found` for an unknown turn, `invalid_request` for a
   * cursor past the last packet written (no client can have received it).
   */
  async checkCursor(chatId: string, turn: number, after: number, field: string): Promise<void> {
    const live = this.live(chatId, turn);
    if (live) {
      if (after > live.lastSequence) throw beyondEnd(field, after, live.lastSequence);
      return;
    }
    const record = await this.#storage.chats.getTurn({ chatId, turn });
    if (!record)
      throw new ServerError({
        code: 'not_found',
        field: 'path.turn',
        message: `path.turn: this chat has no turn ${turn}.`,
      });
    if (after === 0) return;
    const at = await this.#storage.chats.listPackets({ chatId, turn, after: after - 1, limit: 1 });
    if (at[0]?.sequence !== after) throw beyondEnd(field, after, undefined);
  }

  /** Whether the turn has ended and has no packet after `after` (a resume there gets nothing more). */
  async endedAt(chatId: string, turn: number, after: number): Promise<boolean> {
    const live = this.live(chatId, turn);
    if (live) return live.done && after >= live.lastSequence;
    if (!(await this.#reader.ended(chatId, turn))) return false;
    return (await this.#storage.chats.listPackets({ chatId, turn, after, limit: 1 })).length === 0;
  }

  /**
   * A turn's packets after `after`: replayed from storage for an ended turn; for a running one, the persisted
   * packets and then each new one as it is written, until the turn ends or `signal` aborts.
   */
  follow(chatId: string, turn: number, after: number, signal?: AbortSignal): AsyncGenerator<StoredPacket> {
    // The live turn's own follower, not wrapped in another generator: each packet costs one step fewer.
    const live = this.live(chatId, turn);
    if (live) return live.follow(after, signal);
    if (this.#scaleOut) return this.#reader.followShared(this.#scaleOut, chatId, turn, after, signal);
    return this.#reader.replay(chatId, turn, after, signal);
  }

  /**
   * Closes the turns a dead process left running: each open tool call gets an error and its section end, the turn a
   * stop packet with reason `interrupted`, and the history the question and what was answered so far. Only for a
   * single replica at start-up: with several, a running turn may belong to a live replica.
   */
  async closeInterruptedTurns(reason: string = INTERRUPTED_TURN_REASON): Promise<number> {
    const running = (await this.#storage.chats.listRunningTurns()).filter(
      (turn) => !this.#live.has(keyOf(turn.chatId, turn.index)),
    );
    for (const turn of running) await this.closeInterrupted(turn, reason);
    return running.length;
  }

  /**
   * Closes one turn whose runner died (see {@link closeInterruptedTurns}): its closing packets are stored with its
   * end, in one transaction, so of two closers at once (two replicas, a sweep and a restarted process) only the one
   * that ends the turn stores any. With a shared log, the packets the dead runner stored but did not append are
   * appended, then the closing ones and the end. False when the turn was no longer running.
   */
  async closeInterrupted(turn: ChatTurnRecord, reason: string = INTERRUPTED_TURN_REASON): Promise<boolean> {
    const { chatId, index } = turn;
    // Retried while storage does not answer (PostgreSQL restarting): a takeover that failed would leave the turn
    // running, and its followers waiting, until the next sweep. A refused or failed end stored nothing.
    const stored: StoredPacket[] = [];
    // Every try of this end carries it: a try after one that committed unseen (its reply lost) is told it ended
    // the turn, so it still ends the shared log, where another closer's end is a conflict.
    const endToken = randomUUID();
    const finished = await retryStorage(
      async () => {
        stored.length = 0;
        for await (const packet of this.#reader.replay(chatId, index, 0)) stored.push(packet);
        const packets = stored.map((packet) => packet.packet as Packet);
        try {
          await this.#storage.chats.finishTurn({
            chatId,
            turn: index,
            status: 'interrupted',
            reason,
            messages: [...turn.input, interruptedAnswer(packets, reason)],
            packets: closingPackets(packets, reason),
            endToken,
          });
          return true;
        } catch (error) {
          // Another closer ended it first: its closing packets stand.
          if (errorCode(error) === 'conflict') return false;
          throw error;
        }
      },
      { windowMs: this.#drives.storageRetry.writeMs, signal: this.#closing.signal },
    );
    if (!finished) return false;
    if (this.#scaleOut) {
      try {
        // The closing packets as stored, with their sequences.
        for await (const packet of this.#reader.replay(chatId, index, stored.at(-1)?.sequence ?? 0)) {
          stored.push(packet);
        }
        await this.#logMissing(chatId, index, stored);
        await this.#scaleOut.packets.end(chatId, index);
      } catch (error) {
        // Followers read the rest from storage once the log stays quiet.
        this.#logger.warn('turn.log_end_failed', { chatId, turn: index, error: errorCode(error) });
      }
    }
    this.#logger.warn('turn.interrupted', { chatId, turn: index });
    return true;
  }

  /** Appends to the shared log the stored packets it does not have yet (a no-op without a shared backend). */
  async #logMissing(chatId: string, turn: number, stored: readonly StoredPacket[]): Promise<void> {
    if (!this.#scaleOut) return;
    const logged = await this.#scaleOut.packets.lastSequence(chatId, turn);
    await this.#scaleOut.packets.append(
      chatId,
      turn,
      stored.filter((packet) => packet.sequence > logged),
    );
  }

  /**
   * Closes, as {@link closeInterrupted} does, the turns storage lists as running that no queued job and no worker
   * replica has, once older than `graceMs` (a turn just recorded is queued a moment later). A turn a live worker
   * runs is held by it and left alone; while a turn is closed here, the sweep holds it, so no worker starts it.
   * One replica sweeps at a time (a single-flight lock); another that tries meanwhile skips. The number closed.
   */
  async closeAbandonedTurns(options: { readonly graceMs: number }): Promise<number> {
    const scaleOut = this.#scaleOut;
    if (!scaleOut) return 0;
    const token = await scaleOut.locks.acquire(abandonedSweepLock, abandonedSweepLockMs);
    if (token === undefined) return 0;
    try {
      const cutoff = Date.now() - options.graceMs;
      const candidates = (await this.#storage.chats.listRunningTurns()).filter(
        (turn) => !this.#live.has(keyOf(turn.chatId, turn.index)) && Date.parse(turn.startedAt) <= cutoff,
      );
      let closed = 0;
      for (const candidate of candidates) {
        const release = await scaleOut.queue.holdIfAbandoned(candidate.chatId, candidate.index);
        if (release === undefined) continue;
        try {
          // Read again under the hold: it may have ended since the list was read.
          const turn = await this.#storage.chats.getTurn({ chatId: candidate.chatId, turn: candidate.index });
          if (turn?.status === 'running' && (await this.closeInterrupted(turn, ABANDONED_TURN_REASON))) {
            closed += 1;
          }
        } finally {
          await release().catch(() => undefined);
        }
      }
      return closed;
    } finally {
      await scaleOut.locks.release(abandonedSweepLock, token).catch(() => false);
    }
  }

  /**
   * Stops every running turn and waits until each has written its end: as `interrupted`, with
   * {@link SHUTDOWN_TURN_REASON} and a `stop` packet saying so (the user did not cancel them), each started tool
   * call answered as cancelled, and what was answered so far kept in the history.
   */
  async stopAll(): Promise<void> {
    // Nothing waits for storage or the shared log to come back any more: the process is about to exit.
    this.#closing.abort();
    const live = [...this.#live.values()];
    for (const turn of live) turn.controller.abort(shutdownSignal);
    await Promise.all(live.map((turn) => turn.ended));
    await this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }
}

function keyOf(chatId: string, turn: number): string {
  return `${chatId}\u0000${turn}`;
}

function beyondEnd(field: string, after: number, last: number | undefined): ServerError {
  return new ServerError({
    code: 'invalid_request',
    field,
    message: `${field}: no packet ${after} in this turn${last === undefined ? '' : ` (the last is ${last})`}; resume from a sequence you received.`,
  });
}
