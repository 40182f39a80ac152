import type { ChatTurn, ChatTurnResult } from '@toolbus/core';
import type { ChatMessage, Packet, Placement } from '@toolbus/spec';
import { coalesceTextDeltas, foldAnswer, omitUndefined, placementKey, ToolbusError } from '@toolbus/spec';
import type { ChatTurnKind, ChatTurnRecord, ChatTurnStatus, Storage, StoredPacket } from '@toolbus/storage';
import type { TurnApprovals } from '../approvals/approval-hub.ts';
import { ServerError } from '../http/server-error.ts';
import type { ScaleOutBackend } from '../scale-out/scale-out-backend.ts';
import { InProcessTurnSlots, type TurnSlots } from '../scale-out/turn-slots.ts';
import type { ServerLogger } from '../server-logger.ts';
import { LiveTurn } from './live-turn.ts';
import { PacketBatcher } from './packet-batcher.ts';

/** What starting a turn takes. */
export interface StartTurnOptions {
  readonly chatId: string;
  readonly userId: string;
  readonly kind?: ChatTurnKind;
  /** The messages the turn adds before the answer (the user's message). */
  readonly input: readonly ChatMessage[];
  /** Starts the agent loop; called once the turn is recorded (with its index). */
  readonly run: (signal: AbortSignal, turn: number, context: TurnRunContext) => ChatTurn;
  /** Runs after the turn ended and its history is written (closes the tool assembly). */
  readonly cleanup?: () => Promise<void>;
  /** The turn's egress approvals: their packets join the stream at the tool call they belong to. */
  readonly approvals?: TurnApprovals;
  /** The concurrency slot the turn holds ({@link TurnRunner.acquireSlot}): kept alive while it runs, then freed. */
  readonly slot?: string;
  /**
   * For a queued turn: true while this replica still holds it. Checked before every write; once false the turn is
   * aborted and writes nothing more (the replica that took it over closes it).
   */
  readonly held?: () => Promise<boolean>;
  /**
   * The turn ran before on a replica that died, and this run goes on from where it stopped (a Deep Research run
   * resumed from its checkpoint): the packets stored so far are kept and published first, and this run's packets
   * follow them in the same sequence.
   */
  readonly continues?: boolean;
}

/** What a turn's loop may ask of the runner driving it. */
export interface TurnRunContext {
  /** The packets stored before this run started (see {@link StartTurnOptions.continues}), in order. */
  readonly earlier: readonly Packet[];
  /**
   * Resolves once every packet the loop emitted so far is stored and published: true, or false when this replica
   * no longer holds the turn or could not store them (then nothing that depends on them may be written either).
   */
  persisted(): Promise<boolean>;
}

/** The reason written on turns whose worker replica died while running them. */
export const WORKER_LOST_TURN_REASON =
  'The server replica running this turn stopped; the turn was closed by another replica and not run again, so no tool ran twice.';

/**
 * The reason written on turns recorded as running that no queued job and no worker replica had (the replica that
 * recorded it died before queueing it, or the job was lost): closed by the sweep, never run.
 */
export const ABANDONED_TURN_REASON =
  'No server replica was running this turn and none was going to (it was never queued, or its job was lost); it was closed by another replica and not run again.';

/** The reason written on a turn the queue refused: it never ran. */
export const NOT_QUEUED_TURN_REASON =
  'The turn could not be queued for a worker replica, so it never ran; send the message again.';

/** The single-flight lock that lets one replica at a time sweep abandoned turns. */
const abandonedSweepLock = 'abandoned-turn-sweep';
const abandonedSweepLockMs = 5 * 60_000;

/** How long a follower of a turn running on another replica waits for packets before checking the turn's status. */
const sharedReadBlockMs = 1_000;

/** The reason written on turns that were running when this server was shut down (SIGINT, SIGTERM, `close()`). */
export const SHUTDOWN_TURN_REASON =
  'The server was shut down while this turn was running; it was stopped and closed before the process exited.';

/** The reason written on turns a dead process left running. */
export const INTERRUPTED_TURN_REASON =
  'The server stopped while this turn was running; it was closed at the next start.';

const replayPageSize = 500;

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
  readonly #batcher: PacketBatcher;
  #unsubscribe: (() => Promise<void>) | undefined;

  constructor(options: {
    readonly storage: Storage;
    readonly logger: ServerLogger;
    /** Shared by replicas: packets, stops and slots (default: this process only). */
    readonly scaleOut?: ScaleOutBackend | undefined;
    /** How long packets wait to be stored with others (see {@link PacketBatcher}); default 0, the next pass. */
    readonly packetFlushMs?: number | undefined;
  }) {
    this.#storage = options.storage;
    this.#logger = options.logger;
    this.#scaleOut = options.scaleOut;
    this.#slots = options.scaleOut?.slots ?? new InProcessTurnSlots();
    this.#batcher = new PacketBatcher(options.storage, { flushMs: options.packetFlushMs ?? 0 });
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
      for await (const packet of this.#replay(options.chatId, options.turn, 0)) earlier.push(packet);
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
    void this.#drive(
      live,
      options,
      earlier.map((stored) => stored.packet as Packet),
    );
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

  /**
   * A turn's packets after `after`: replayed from storage for an ended turn; for a running one, the persisted
   * packets and then each new one as it is written, until the turn ends or `signal` aborts.
   */
  follow(chatId: string, turn: number, after: number, signal?: AbortSignal): AsyncGenerator<StoredPacket> {
    // The live turn's own follower, not wrapped in another generator: each packet costs one step fewer.
    const live = this.live(chatId, turn);
    if (live) return live.follow(after, signal);
    if (this.#scaleOut) return this.#followShared(this.#scaleOut, chatId, turn, after, signal);
    return this.#replay(chatId, turn, after, signal);
  }

  /**
   * A turn running (or queued) on another replica: its packets from the shared log, live. When the log stays quiet
   * and storage says the turn ended (the log forgot it, or its writer died before appending), the rest comes
   * from storage, which has every packet the log has.
   */
  async *#followShared(
    scaleOut: ScaleOutBackend,
    chatId: string,
    turn: number,
    after: number,
    signal?: AbortSignal,
  ): AsyncGenerator<StoredPacket> {
    let cursor = after;
    const record = await this.#storage.chats.getTurn({ chatId, turn });
    let ended = record !== undefined && record.status !== 'running';
    for (;;) {
      if (signal?.aborted) return;
      const read = await scaleOut.packets.read(chatId, turn, cursor, {
        blockMs: ended ? 0 : sharedReadBlockMs,
      });
      for (const packet of read.packets) {
        if (signal?.aborted) return;
        yield packet;
        cursor = packet.sequence;
      }
      if (read.ended) return;
      if (read.packets.length > 0) continue;
      if (!ended) {
        // Quiet: still running (or queued), or it ended while this read waited. When it ended, the next read
        // does not wait, and finds the log's end or falls through to storage.
        const now = await this.#storage.chats.getTurn({ chatId, turn });
        ended = now?.status !== 'running';
        continue;
      }
      yield* this.#replay(chatId, turn, cursor, signal);
      return;
    }
  }

  async *#replay(
    chatId: string,
    turn: number,
    after: number,
    signal?: AbortSignal,
  ): AsyncGenerator<StoredPacket> {
    let cursor = after;
    for (;;) {
      const page = await this.#storage.chats.listPackets({
        chatId,
        turn,
        after: cursor,
        limit: replayPageSize,
      });
      for (const packet of page) {
        if (signal?.aborted) return;
        yield packet;
        cursor = packet.sequence;
      }
      if (page.length < replayPageSize) return;
    }
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
   * Closes one turn whose runner died (see {@link closeInterruptedTurns}); with a shared log, the packets the dead
   * runner stored but did not append are appended first, then the closing ones and the end. False when the turn
   * was no longer running.
   */
  async closeInterrupted(turn: ChatTurnRecord, reason: string = INTERRUPTED_TURN_REASON): Promise<boolean> {
    const stored: StoredPacket[] = [];
    for await (const packet of this.#replay(turn.chatId, turn.index, 0)) stored.push(packet);
    const packets = stored.map((packet) => packet.packet as Packet);
    const closing = closingPackets(packets, reason);
    const last = await this.#storage.chats.appendPackets({
      chatId: turn.chatId,
      turn: turn.index,
      packets: closing,
    });
    const partial = partialAnswer(packets);
    try {
      await this.#storage.chats.finishTurn({
        chatId: turn.chatId,
        turn: turn.index,
        status: 'interrupted',
        reason,
        messages: [
          ...turn.input,
          {
            role: 'assistant',
            content: `${partial ? `${partial}\n\n` : ''}[This answer was interrupted: ${reason}]`,
          },
        ],
      });
    } catch (error) {
      // Another replica closed it first: its closing packets stand.
      if (errorCode(error) === 'conflict') return false;
      throw error;
    }
    if (this.#scaleOut) {
      const first = last - closing.length + 1;
      const all = [...stored, ...closing.map((packet, offset) => ({ sequence: first + offset, packet }))];
      await this.#logMissing(turn.chatId, turn.index, all);
      await this.#scaleOut.packets.end(turn.chatId, turn.index);
    }
    this.#logger.warn('turn.interrupted', { chatId: turn.chatId, turn: turn.index });
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
    const live = [...this.#live.values()];
    for (const turn of live) turn.controller.abort(shutdownSignal);
    await Promise.all(live.map((turn) => turn.ended));
    await this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  async #drive(live: LiveTurn, options: StartTurnOptions, earlier: readonly Packet[]): Promise<void> {
    const { chatId } = options;
    const turnIndex = live.index;
    const pending: Packet[] = [];
    let lostHold = false;
    const stillHeld = async (): Promise<boolean> => {
      if (lostHold) return false;
      if (!options.held || (await options.held().catch(() => false))) return true;
      lostHold = true;
      writeFailed = new Error('This replica lost its hold on the turn.');
      live.controller.abort();
      this.#logger.warn('turn.hold_lost', { chatId, turn: turnIndex });
      return false;
    };
    let scheduled = false;
    let writing: Promise<void> = Promise.resolve();
    let writeFailed: unknown;
    // Packets queued during one event-loop pass are written with those of every other running turn (one
    // transaction), taken when the batch is written; a turn's writes follow one another in order. Text deltas
    // queued together become one packet: when the process falls behind its models, it stores and sends one
    // packet per pass instead of one per token.
    const take = () => {
      scheduled = false;
      return writeFailed === undefined ? coalesceTextDeltas(pending.splice(0)) : [];
    };
    const write = async () => {
      if (writeFailed !== undefined || pending.length === 0) {
        scheduled = false;
        return;
      }
      if (!(await stillHeld())) return;
      try {
        const stored = await this.#batcher.write(chatId, turnIndex, take);
        if (stored.length === 0) return;
        await this.#scaleOut?.packets.append(chatId, turnIndex, stored);
        live.publish(stored);
      } catch (error) {
        writeFailed = error;
        live.controller.abort();
        this.#logger.error('turn.persist_failed', { chatId, turn: turnIndex, error: errorCode(error) });
      }
    };
    const enqueue = (packet: Packet) => {
      pending.push(packet);
      if (!scheduled) {
        scheduled = true;
        writing = writing.then(write);
      }
    };
    let result: ChatTurnResult | undefined;
    let failure: unknown;
    // Approval packets are placed at the tool call whose code asked (its tool-start placement); one that names no
    // known call goes to the top level of the latest cycle.
    const toolPlacements = new Map<string, Placement>();
    let latestCycle = 0;
    let streaming = true;
    options.approvals?.attach((obj, toolCallId) => {
      if (!streaming) return;
      const placement = (toolCallId === undefined ? undefined : toolPlacements.get(toolCallId)) ?? {
        turn: latestCycle,
        tab: 0,
      };
      enqueue({ placement, modelIndex: 0, obj });
    });
    const slot = options.slot;
    const refreshMs = this.#slots.refreshIntervalMs;
    const refresher =
      slot !== undefined && refreshMs !== undefined
        ? setInterval(() => {
            this.#slots.refresh(options.userId, slot).catch((error: unknown) => {
              this.#logger.warn('turn.slot_refresh_failed', {
                chatId,
                turn: turnIndex,
                error: errorCode(error),
              });
            });
          }, refreshMs)
        : undefined;
    const persisted = async (): Promise<boolean> => {
      // The loop below takes emitted packets in microtasks: after one macrotask it has enqueued them all, and
      // the write chain as it stands then stores them.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await writing;
      return writeFailed === undefined && (await stillHeld());
    };
    // The answer streamed since the last tool call: what a stopped turn's history keeps when the loop's own
    // history has no answer yet (it writes one only when a model step completes).
    let answerSoFar = '';
    const shutDown = () => live.controller.signal.reason === shutdownSignal;
    try {
      const turn = options.run(live.controller.signal, turnIndex, { earlier, persisted });
      for await (const packet of turn) {
        const topLevel = !packet.placement.path?.length;
        if (packet.obj.type === 'tool-start') {
          toolPlacements.set(packet.obj.toolCallId, packet.placement);
          if (topLevel) answerSoFar = '';
        }
        if (topLevel) {
          latestCycle = Math.max(latestCycle, packet.placement.turn);
          if (packet.obj.type === 'message-delta') answerSoFar += packet.obj.content;
          if (packet.obj.type === 'message-replace') answerSoFar = packet.obj.content;
        }
        if (packet.obj.type === 'stop' && packet.obj.reason === 'user-cancelled' && shutDown()) {
          enqueue({ ...packet, obj: { type: 'stop', reason: 'interrupted' } });
          continue;
        }
        enqueue(packet);
      }
      result = await turn.result;
    } catch (error) {
      failure = error;
      enqueue({
        placement: { turn: 0, tab: 0 },
        modelIndex: 0,
        obj: { type: 'error', code: errorCode(error), message: errorMessage(error) },
      });
      enqueue({ placement: { turn: 0, tab: 0 }, modelIndex: 0, obj: { type: 'stop', reason: 'error' } });
    }
    streaming = false;
    options.approvals?.close();
    await writing;
    await write();
    const ended = endOf(result, failure, writeFailed);
    const { status, reason } =
      ended.status === 'stopped' && shutDown()
        ? { status: 'interrupted' as const, reason: SHUTDOWN_TURN_REASON }
        : ended;
    const owner = await stillHeld();
    try {
      if (!owner) throw new Error('lost hold');
      await this.#storage.chats.finishTurn({
        chatId,
        turn: turnIndex,
        status,
        ...omitUndefined({ reason }),
        messages: [...options.input, ...closedHistory(result?.messages ?? [], status, answerSoFar)],
      });
    } catch (error) {
      if (owner)
        this.#logger.error('turn.finish_failed', { chatId, turn: turnIndex, error: errorCode(error) });
    }
    try {
      if (owner) await this.#scaleOut?.packets.end(chatId, turnIndex);
    } catch (error) {
      // Followers elsewhere read the end from storage once the log stays quiet.
      this.#logger.warn('turn.log_end_failed', { chatId, turn: turnIndex, error: errorCode(error) });
    }
    clearInterval(refresher);
    if (slot !== undefined) {
      await this.#slots.release(options.userId, slot).catch((error: unknown) => {
        this.#logger.warn('turn.slot_release_failed', { chatId, turn: turnIndex, error: errorCode(error) });
      });
    }
    this.#logger.info('turn.end', { chatId, turn: turnIndex, status, packets: live.lastSequence });
    this.#live.delete(keyOf(chatId, turnIndex));
    live.finish();
    await options
      .cleanup?.()
      .catch((error: unknown) =>
        this.#logger.warn('turn.cleanup_failed', { chatId, turn: turnIndex, error: errorCode(error) }),
      );
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

function endOf(
  result: ChatTurnResult | undefined,
  failure: unknown,
  writeFailed: unknown,
): { status: Exclude<ChatTurnStatus, 'running'>; reason?: string } {
  if (writeFailed !== undefined) return { status: 'failed', reason: 'Its packets could not be stored.' };
  if (result === undefined) return { status: 'failed', reason: errorMessage(failure) };
  if (result.stopReason === 'user-cancelled') return { status: 'stopped', reason: 'user-cancelled' };
  if (result.error) return { status: 'failed', reason: result.error.message };
  return { status: 'completed', reason: result.stopReason };
}

/** The abort reason of turns stopped because the server shuts down (not because their user stopped them). */
const shutdownSignal = new ToolbusError({ code: 'server_shutdown', message: SHUTDOWN_TURN_REASON });

/**
 * The assistant message a stopped or shut-down turn's history ends with when the loop's history has no answer
 * after its last tool results: the answer streamed so far (which the stream showed), and for a shut-down turn a
 * note saying it was interrupted, as a turn closed after a crash has. None when the loop wrote the answer.
 */
function stoppedAnswer(
  messages: readonly ChatMessage[],
  status: ChatTurnStatus,
  answerSoFar: string,
): ChatMessage[] {
  if (status !== 'stopped' && status !== 'interrupted') return [];
  const last = messages.at(-1);
  if (last?.role === 'assistant' && !last.toolCalls?.length) return [];
  const partial = answerSoFar.trim();
  if (status === 'stopped') return partial ? [{ role: 'assistant', content: partial }] : [];
  return [
    {
      role: 'assistant',
      content: `${partial ? `${partial}\n\n` : ''}[This answer was interrupted: ${SHUTDOWN_TURN_REASON}]`,
    },
  ];
}

/**
 * The loop's history with a stopped turn's end: the loop keeps the answer a stop cut off itself, and a shut-down
 * turn's note goes on that answer; {@link stoppedAnswer} covers a history that has none.
 */
function closedHistory(
  messages: readonly ChatMessage[],
  status: ChatTurnStatus,
  answerSoFar: string,
): ChatMessage[] {
  const last = messages.at(-1);
  if (status === 'interrupted' && last?.role === 'assistant' && !last.toolCalls?.length) {
    const note = `[This answer was interrupted: ${SHUTDOWN_TURN_REASON}]`;
    return [
      ...messages.slice(0, -1),
      { ...last, content: last.content ? `${last.content}\n\n${note}` : note },
    ];
  }
  return [...messages, ...stoppedAnswer(messages, status, answerSoFar)];
}

/** The packets that close an interrupted stream: an error and a section end per open tool, then `stop`. */
function closingPackets(packets: readonly Packet[], reason: string): Packet[] {
  const open = new Map<string, Placement>();
  let lastTurn = 0;
  for (const packet of packets) {
    lastTurn = Math.max(lastTurn, packet.placement.turn);
    if (packet.obj.type === 'tool-start') open.set(placementKey(packet.placement), packet.placement);
    if (packet.obj.type === 'section-end') open.delete(placementKey(packet.placement));
  }
  const closing: Packet[] = [];
  for (const placement of open.values()) {
    closing.push({
      placement,
      modelIndex: 0,
      obj: { type: 'error', code: 'turn_interrupted', message: `The tool call has no result: ${reason}` },
    });
    closing.push({ placement, modelIndex: 0, obj: { type: 'section-end' } });
  }
  closing.push({
    placement: { turn: lastTurn, tab: 0 },
    modelIndex: 0,
    obj: { type: 'stop', reason: 'interrupted' },
  });
  return closing;
}

/** The answer text streamed at the top level before the turn died. */
/** What the turn had answered, as its readers saw it (retracted text gone): every top-level message. */
function partialAnswer(packets: readonly Packet[]): string {
  return foldAnswer(packets)
    .messages.map((text) => text.trim())
    .filter((text) => text !== '')
    .join('\n\n');
}

function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
    ? (error as { code: string }).code
    : 'internal_error';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
