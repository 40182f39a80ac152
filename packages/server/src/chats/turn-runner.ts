import type { ChatTurn, ChatTurnResult } from '@toolbus/core';
import type { ChatMessage, Packet, Placement } from '@toolbus/spec';
import { omitUndefined, placementKey } from '@toolbus/spec';
import type { ChatTurnKind, ChatTurnStatus, Storage, StoredPacket } from '@toolbus/storage';
import type { TurnApprovals } from '../approvals/approval-hub.ts';
import { ServerError } from '../http/server-error.ts';
import type { ServerLogger } from '../server-logger.ts';
import { LiveTurn } from './live-turn.ts';

/** What starting a turn takes. */
export interface StartTurnOptions {
  readonly chatId: string;
  readonly userId: string;
  readonly kind?: ChatTurnKind;
  /** The messages the turn adds before the answer (the user's message). */
  readonly input: readonly ChatMessage[];
  /** Starts the agent loop; called once the turn is recorded (with its index). */
  readonly run: (signal: AbortSignal, turn: number) => ChatTurn;
  /** Runs after the turn ended and its history is written (closes the tool assembly). */
  readonly cleanup?: () => Promise<void>;
  /** The turn's egress approvals: their packets join the stream at the tool call they belong to. */
  readonly approvals?: TurnApprovals;
}

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

  constructor(options: { readonly storage: Storage; readonly logger: ServerLogger }) {
    this.#storage = options.storage;
    this.#logger = options.logger;
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
    const live = new LiveTurn({ chatId: options.chatId, index: record.index, userId: options.userId });
    this.#live.set(keyOf(options.chatId, record.index), live);
    this.#logger.info('turn.start', { chatId: options.chatId, turn: record.index, userId: options.userId });
    void this.#drive(live, options);
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
   * Checks a resume cursor before any byte is streamed: `not_found` for an unknown turn, `invalid_request` for a
   * cursor past the last packet written (no client can have received it).
   */
  async checkCursor(chatId: string, turn: number, after: number): Promise<void> {
    const live = this.live(chatId, turn);
    if (live) {
      if (after > live.lastSequence) throw beyondEnd(after, live.lastSequence);
      return;
    }
    const record = await this.#storage.chats.getTurn({ chatId, turn });
    if (!record) throw new ServerError({ code: 'not_found', message: `This chat has no turn ${turn}.` });
    if (after === 0) return;
    const at = await this.#storage.chats.listPackets({ chatId, turn, after: after - 1, limit: 1 });
    if (at[0]?.sequence !== after) throw beyondEnd(after, undefined);
  }

  /**
   * A turn's packets after `after`: replayed from storage for an ended turn; for a running one, the persisted
   * packets and then each new one as it is written, until the turn ends or `signal` aborts.
   */
  async *follow(
    chatId: string,
    turn: number,
    after: number,
    signal?: AbortSignal,
  ): AsyncGenerator<StoredPacket> {
    const live = this.live(chatId, turn);
    if (live) {
      yield* live.follow(after, signal);
      return;
    }
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
   * stop packet with reason `interrupted`, and the history the question and what was answered so far.
   */
  async closeInterruptedTurns(reason: string = INTERRUPTED_TURN_REASON): Promise<number> {
    const running = (await this.#storage.chats.listRunningTurns()).filter(
      (turn) => !this.#live.has(keyOf(turn.chatId, turn.index)),
    );
    for (const turn of running) {
      const packets: Packet[] = [];
      for await (const stored of this.follow(turn.chatId, turn.index, 0))
        packets.push(stored.packet as Packet);
      const closing = closingPackets(packets, reason);
      await this.#storage.chats.appendPackets({ chatId: turn.chatId, turn: turn.index, packets: closing });
      const partial = partialAnswer(packets);
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
      this.#logger.warn('turn.interrupted', { chatId: turn.chatId, turn: turn.index });
    }
    return running.length;
  }

  /** Stops every running turn and waits until each has written its end. */
  async stopAll(): Promise<void> {
    const live = [...this.#live.values()];
    for (const turn of live) turn.controller.abort();
    await Promise.all(live.map((turn) => turn.ended));
  }

  async #drive(live: LiveTurn, options: StartTurnOptions): Promise<void> {
    const { chatId } = options;
    const turnIndex = live.index;
    const pending: Packet[] = [];
    let scheduled = false;
    let writing: Promise<void> = Promise.resolve();
    let writeFailed: unknown;
    const write = async () => {
      scheduled = false;
      const batch = pending.splice(0);
      if (batch.length === 0 || writeFailed !== undefined) return;
      try {
        const last = await this.#storage.chats.appendPackets({ chatId, turn: turnIndex, packets: batch });
        const first = last - batch.length + 1;
        live.publish(batch.map((packet, offset) => ({ sequence: first + offset, packet })));
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
        writing = writing.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(write);
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
    try {
      const turn = options.run(live.controller.signal, turnIndex);
      for await (const packet of turn) {
        if (packet.obj.type === 'tool-start') toolPlacements.set(packet.obj.toolCallId, packet.placement);
        if (!packet.placement.path?.length) latestCycle = Math.max(latestCycle, packet.placement.turn);
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
    const { status, reason } = endOf(result, failure, writeFailed);
    try {
      await this.#storage.chats.finishTurn({
        chatId,
        turn: turnIndex,
        status,
        ...omitUndefined({ reason }),
        messages: [...options.input, ...(result?.messages ?? [])],
      });
    } catch (error) {
      this.#logger.error('turn.finish_failed', { chatId, turn: turnIndex, error: errorCode(error) });
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

function beyondEnd(after: number, last: number | undefined): ServerError {
  return new ServerError({
    code: 'invalid_request',
    field: 'cursor',
    message: `cursor: no packet ${after} in this turn${last === undefined ? '' : ` (the last is ${last})`}; resume from a sequence you received.`,
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
function partialAnswer(packets: readonly Packet[]): string {
  let text = '';
  for (const packet of packets) {
    if (packet.obj.type === 'message-delta' && !packet.placement.path?.length) text += packet.obj.content;
  }
  return text.trim();
}

function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
    ? (error as { code: string }).code
    : 'internal_error';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
