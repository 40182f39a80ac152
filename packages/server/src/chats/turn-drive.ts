import { randomUUID } from 'node:crypto';
import type { ChatTurnResult } from '@toolbus/core';
import type { Packet, PacketObject } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import type { ScaleOutBackend } from '../scale-out/scale-out-backend.ts';
import type { TurnSlots } from '../scale-out/turn-slots.ts';
import type { ServerLogger } from '../server-logger.ts';
import type { LiveTurn } from './live-turn.ts';
import type { PacketBatcher } from './packet-batcher.ts';
import { SharedLogMirror } from './shared-log-mirror.ts';
import type { StartTurnOptions } from './start-turn-options.ts';
import { retryStorage } from './storage-retry.ts';
import { TurnAnswerTracker } from './turn-answer-tracker.ts';
import {
  closedHistory,
  closingPackets,
  endOf,
  errorCode,
  errorMessage,
  interruptedAnswer,
} from './turn-closing.ts';
import {
  SHUTDOWN_TURN_REASON,
  STORAGE_FAILED_TURN_REASON,
  shutdownSignal,
  storageFailedSignal,
} from './turn-reasons.ts';
import { TurnWriter } from './turn-writer.ts';

/** What the runner lends each turn it drives. */
export interface TurnDriveContext {
  readonly storage: Storage;
  readonly logger: ServerLogger;
  readonly slots: TurnSlots;
  readonly batcher: PacketBatcher;
  readonly scaleOut: ScaleOutBackend | undefined;
  /** How long a failed write is retried, and how long a turn storage failed waits for storage to close it. */
  readonly storageRetry: { readonly writeMs: number; readonly closeMs: number };
  /** Aborted when the server closes: retries stop. */
  readonly closing: AbortSignal;
  /** Called once the turn has ended (the runner forgets it). */
  readonly ended: (live: LiveTurn) => void;
}

/**
 * Where a turn is: `streaming` while its loop runs (packets and approvals are written), `closing` while its end is
 * written, `ended` once followers are released.
 */
type Phase = 'streaming' | 'closing' | 'ended';

/** The packets that close the stream of a turn storage failed: the error, each open tool call answered, `stop`. */
function closingPacketsOf(packets: readonly Packet[]): Packet[] {
  return [
    {
      placement: { turn: 0, tab: 0 },
      modelIndex: 0,
      obj: { type: 'error', code: 'storage_unavailable', message: STORAGE_FAILED_TURN_REASON },
    },
    ...closingPackets(packets, STORAGE_FAILED_TURN_REASON, 'error'),
  ];
}

/** How the loop ended: with its result, or with the error it threw. */
type LoopOutcome = { readonly result: ChatTurnResult } | { readonly failure: unknown };

/**
 * Drives one turn from its loop's first packet to its end in storage: the loop's packets go through a
 * {@link TurnWriter}; the end is written by what the writer's state says: a normal end, a turn storage failed
 * (closed once storage answers again), or a turn this replica lost (left to the replica that took it over).
 */
export class TurnDrive {
  readonly #context: TurnDriveContext;
  readonly #live: LiveTurn;
  readonly #options: StartTurnOptions;
  readonly #earlier: readonly Packet[];
  readonly #writer: TurnWriter;
  readonly #answer = new TurnAnswerTracker();
  /** This drive's own, on every try of the turn's end: a try after one that committed unseen gets the end back. */
  readonly #endToken = randomUUID();
  #phase: Phase = 'streaming';

  constructor(
    context: TurnDriveContext,
    live: LiveTurn,
    options: StartTurnOptions,
    earlier: readonly Packet[],
  ) {
    this.#context = context;
    this.#live = live;
    this.#options = options;
    this.#earlier = earlier;
    const log = context.scaleOut?.packets;
    this.#writer = new TurnWriter({
      storage: context.storage,
      batcher: context.batcher,
      live,
      mirror:
        log &&
        new SharedLogMirror({
          log,
          chatId: live.chatId,
          turn: live.index,
          source: (after) => live.packetsAfter(after),
          mirrored: live.lastSequence,
          logger: context.logger,
          signal: context.closing,
        }),
      held: options.held,
      logger: context.logger,
      retryMs: context.storageRetry.writeMs,
      signal: context.closing,
      halt: () => live.controller.abort(storageFailedSignal),
    });
  }

  /** Runs the turn to its end (never throws: every failure ends the turn with a reason). */
  async run(): Promise<void> {
    const refresher = this.#keepSlot();
    const inStream = (obj: PacketObject, toolCallId: string | undefined) => {
      if (this.#phase !== 'streaming') return;
      this.#writer.enqueue({ placement: this.#answer.placementOf(toolCallId), modelIndex: 0, obj });
    };
    this.#options.approvals?.attach(inStream);
    this.#options.elicitations?.attach(inStream);
    const outcome = await this.#stream();
    this.#phase = 'closing';
    this.#options.approvals?.close();
    this.#options.elicitations?.close();
    await this.#writer.drain();
    const state = this.#writer.state;
    if (state.kind === 'writing') await this.#finish(outcome);
    else if (state.kind === 'store-failed') await this.#closeUnstored();
    // hold-lost: the replica that took the turn over closes it; nothing more is written here.
    clearInterval(refresher);
    await this.#releaseSlot();
    this.#phase = 'ended';
    const { chatId, index: turn } = this.#live;
    this.#context.logger.info('turn.end', {
      chatId,
      turn,
      state: state.kind,
      packets: this.#live.lastSequence,
    });
    this.#context.ended(this.#live);
    this.#live.finish();
    await this.#options
      .cleanup?.()
      .catch((error: unknown) =>
        this.#context.logger.warn('turn.cleanup_failed', { chatId, turn, error: errorCode(error) }),
      );
  }

  async #stream(): Promise<LoopOutcome> {
    const { signal } = this.#live.controller;
    try {
      const turn = this.#options.run(signal, this.#live.index, {
        earlier: this.#earlier,
        persisted: () => this.#writer.persisted(),
      });
      // Handed over as emitted where the turn allows it: no promise per packet between the loop and the writer.
      if (turn.consume) await turn.consume((packet) => this.#emit(packet));
      else for await (const packet of turn) this.#emit(packet);
      return { result: await turn.result };
    } catch (failure) {
      for (const obj of [
        { type: 'error' as const, code: errorCode(failure), message: errorMessage(failure) },
        { type: 'stop' as const, reason: 'error' as const },
      ]) {
        this.#writer.enqueue({ placement: { turn: 0, tab: 0 }, modelIndex: 0, obj });
      }
      return { failure };
    }
  }

  #emit(packet: Packet): void {
    this.#answer.see(packet);
    if (packet.obj.type === 'stop' && packet.obj.reason === 'user-cancelled' && this.#shutDown) {
      this.#writer.enqueue({ ...packet, obj: { type: 'stop', reason: 'interrupted' } });
      return;
    }
    this.#writer.enqueue(packet);
  }

  get #shutDown(): boolean {
    return this.#live.controller.signal.reason === shutdownSignal;
  }

  /** The normal end: status, reason and history in storage (retried while storage is away), then the log's end. */
  async #finish(outcome: LoopOutcome): Promise<void> {
    const result = 'result' in outcome ? outcome.result : undefined;
    const ended = endOf(result, 'failure' in outcome ? outcome.failure : undefined);
    const { status, reason } =
      ended.status === 'stopped' && this.#shutDown
        ? { status: 'interrupted' as const, reason: SHUTDOWN_TURN_REASON }
        : ended;
    if (!(await this.#writer.stillHeld())) return;
    const { chatId, index: turn } = this.#live;
    try {
      await this.#retry(() =>
        this.#context.storage.chats.finishTurn({
          chatId,
          turn,
          status,
          ...omitUndefined({ reason }),
          endToken: this.#endToken,
          messages: [
            ...this.#options.input,
            ...closedHistory(result?.messages ?? [], status, this.#answer.answerSoFar),
          ],
        }),
      );
    } catch (error) {
      this.#context.logger.error('turn.finish_failed', { chatId, turn, error: errorCode(error) });
    }
    await this.#writer.endLog();
  }

  /**
   * A turn storage failed: its loop was stopped and what was not stored is dropped. Once storage answers again,
   * its stream is closed (an error, each open tool call answered, a `stop`) with its end, as `failed`, in one
   * write: should another closer (a sweep, once this replica's hold lapsed) end it first, nothing is stored here.
   */
  async #closeUnstored(): Promise<void> {
    const { chatId, index: turn } = this.#live;
    let closed: boolean;
    try {
      closed = await this.#retry(() => this.#endUnstored(), this.#context.storageRetry.closeMs);
    } catch (error) {
      const code = errorCode(error);
      // Ended by another closer (a sweep, once this replica's hold lapsed): its end stands, and it ends the log.
      if (code === 'conflict') this.#context.logger.warn('turn.closed_elsewhere', { chatId, turn });
      // Still running in storage: the next start (or another replica's sweep) closes it.
      else this.#context.logger.error('turn.finish_failed', { chatId, turn, error: code });
      return;
    }
    if (!closed) return;
    this.#context.logger.warn('turn.closed_after_storage_failure', { chatId, turn });
    try {
      // The closing packets, as stored with the end, to this process's followers and the shared log.
      await this.#retry(() => this.#publishStored(), this.#context.storageRetry.closeMs);
    } catch (error) {
      // Followers read the rest from storage once the log stays quiet.
      this.#context.logger.warn('turn.log_end_failed', { chatId, turn, error: errorCode(error) });
      return;
    }
    await this.#writer.endLog();
  }

  /** One try of {@link #closeUnstored}'s end: false when this replica no longer holds the turn. */
  async #endUnstored(): Promise<boolean> {
    if (!(await this.#writer.stillHeld())) return false;
    // A write whose answer was lost may have been committed: what storage holds past the published is it.
    await this.#publishStored();
    const packets = this.#packets();
    await this.#context.storage.chats.finishTurn({
      chatId: this.#live.chatId,
      turn: this.#live.index,
      status: 'failed',
      reason: STORAGE_FAILED_TURN_REASON,
      messages: [...this.#options.input, interruptedAnswer(packets, STORAGE_FAILED_TURN_REASON)],
      // A stream that has its stop (the loop's, stored before its reply was lost) gets nothing after it.
      packets: packets.at(-1)?.obj.type === 'stop' ? [] : closingPacketsOf(packets),
      endToken: this.#endToken,
    });
    return true;
  }

  /** Publishes what storage holds past the packets published (written by a write whose answer was lost, or closing). */
  async #publishStored(): Promise<void> {
    const { chatId, index: turn } = this.#live;
    const stored = await this.#context.storage.chats.listPackets({
      chatId,
      turn,
      after: this.#live.lastSequence,
    });
    if (stored.length > 0) this.#writer.published(stored);
  }

  /** The packets published so far. */
  #packets(): Packet[] {
    return this.#live.packetsAfter(0).map((stored) => stored.packet as Packet);
  }

  #retry<T>(attempt: () => Promise<T>, windowMs = this.#context.storageRetry.writeMs): Promise<T> {
    return retryStorage(attempt, { windowMs, signal: this.#context.closing });
  }

  /** Keeps the turn's concurrency slot alive while it runs. */
  #keepSlot(): NodeJS.Timeout | undefined {
    const { slot, userId } = this.#options;
    const refreshMs = this.#context.slots.refreshIntervalMs;
    if (slot === undefined || refreshMs === undefined) return undefined;
    return setInterval(() => {
      this.#context.slots.refresh(userId, slot).catch((error: unknown) => {
        this.#context.logger.warn('turn.slot_refresh_failed', {
          chatId: this.#live.chatId,
          turn: this.#live.index,
          error: errorCode(error),
        });
      });
    }, refreshMs);
  }

  async #releaseSlot(): Promise<void> {
    const { slot, userId } = this.#options;
    if (slot === undefined) return;
    await this.#context.slots.release(userId, slot).catch((error: unknown) => {
      this.#context.logger.warn('turn.slot_release_failed', {
        chatId: this.#live.chatId,
        turn: this.#live.index,
        error: errorCode(error),
      });
    });
  }
}
