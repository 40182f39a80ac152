import type { Packet } from '@toolbus/spec';
import { coalesceTextDeltas, omitUndefined } from '@toolbus/spec';
import type { Storage, StoredPacket } from '@toolbus/storage';
import type { ServerLogger } from '../server-logger.ts';
import type { LiveTurn } from './live-turn.ts';
import type { PacketBatcher } from './packet-batcher.ts';
import type { SharedLogMirror } from './shared-log-mirror.ts';
import { retryStorage } from './storage-retry.ts';

/**
 * Where a turn's writes stand: `writing` while every packet is stored; `store-failed` once storage refused a
 * write beyond the retry window (what was not stored is dropped: clients are served only what storage has);
 * `hold-lost` once this replica no longer holds the turn (another closes it; nothing more is written here).
 */
export type TurnWriterState =
  | { readonly kind: 'writing' }
  | { readonly kind: 'store-failed'; readonly error: unknown }
  | { readonly kind: 'hold-lost' };

/**
 * A running turn's packets on their way out: queued as the loop emits them, stored in order (with the other turns'
 * packets of the same pass, one transaction), then published to this process's followers and mirrored to the
 * shared log. Storage is the record: a write it fails is retried for a while (PostgreSQL restarting), and the
 * shared log is a cache whose failures never stop the turn.
 */
export class TurnWriter {
  readonly #storage: Storage;
  readonly #batcher: PacketBatcher;
  readonly #live: LiveTurn;
  readonly #mirror: SharedLogMirror | undefined;
  readonly #held: (() => Promise<boolean>) | undefined;
  readonly #logger: ServerLogger;
  readonly #retryMs: number;
  readonly #signal: AbortSignal | undefined;
  readonly #halt: () => void;
  readonly #pending: Packet[] = [];
  #scheduled = false;
  #writing: Promise<void> = Promise.resolve();
  #state: TurnWriterState = { kind: 'writing' };

  constructor(options: {
    readonly storage: Storage;
    readonly batcher: PacketBatcher;
    readonly live: LiveTurn;
    readonly mirror?: SharedLogMirror | undefined;
    /** For a queued turn: whether this replica still holds it (checked before every write). */
    readonly held?: (() => Promise<boolean>) | undefined;
    readonly logger: ServerLogger;
    /** How long a failed write is retried (see {@link retryStorage}). */
    readonly retryMs: number;
    /** Aborted when the server closes: retries stop. */
    readonly signal?: AbortSignal;
    /** Stops the turn's loop: called once, when writing stops (a store failure, a lost hold). */
    readonly halt: () => void;
  }) {
    this.#storage = options.storage;
    this.#batcher = options.batcher;
    this.#live = options.live;
    this.#mirror = options.mirror;
    this.#held = options.held;
    this.#logger = options.logger;
    this.#retryMs = options.retryMs;
    this.#signal = options.signal;
    this.#halt = options.halt;
  }

  get state(): TurnWriterState {
    return this.#state;
  }

  /** Queues a packet: it is written with the next batch (a turn's writes follow one another in order). */
  enqueue(packet: Packet): void {
    this.#pending.push(packet);
    if (!this.#scheduled) {
      this.#scheduled = true;
      this.#writing = this.#writing.then(() => this.#write());
    }
  }

  /** Writes whatever is still queued and waits until every write is done. */
  async drain(): Promise<void> {
    await this.#writing;
    await this.#write();
  }

  /**
   * Resolves once every packet emitted so far is stored and published: true, or false when they were not (this
   * replica lost the turn, or storage failed), so nothing that depends on them may be written either.
   */
  async persisted(): Promise<boolean> {
    // The loop hands emitted packets over in microtasks: after one macrotask it has queued them all, and the write
    // chain as it stands then stores them.
    await new Promise<void>((resolve) => setImmediate(resolve));
    await this.#writing;
    return this.#state.kind === 'writing' && (await this.stillHeld());
  }

  /** Whether this replica still holds the turn; the first false makes the state `hold-lost` and halts the turn. */
  async stillHeld(): Promise<boolean> {
    if (this.#state.kind === 'hold-lost') return false;
    if (!this.#held || (await this.#held().catch(() => false))) return true;
    this.#state = { kind: 'hold-lost' };
    this.#halt();
    this.#logger.warn('turn.hold_lost', { chatId: this.#live.chatId, turn: this.#live.index });
    return false;
  }

  /** Marks the packets `stored` outside the queue (closing packets) as published and mirrored. */
  published(stored: readonly StoredPacket[]): void {
    this.#live.publish(stored);
    this.#mirror?.sync();
  }

  /** Marks the turn ended in the shared log (see {@link SharedLogMirror.end}). */
  async endLog(): Promise<void> {
    await this.#mirror?.end();
  }

  async #write(): Promise<void> {
    if (this.#state.kind !== 'writing' || this.#pending.length === 0) {
      this.#scheduled = false;
      return;
    }
    // Only a queued turn's hold is checked: the others' writes take no extra promise per pass.
    if (this.#held !== undefined && !(await this.stillHeld())) return;
    let taken: readonly Packet[] = [];
    // Packets queued during one event-loop pass are taken when the batch is written; text deltas queued together
    // become one packet: a process that falls behind its models stores and sends one packet per pass, not per token.
    const take = () => {
      this.#scheduled = false;
      taken = coalesceTextDeltas(this.#pending.splice(0));
      return taken;
    };
    let stored: readonly StoredPacket[];
    try {
      stored = await this.#batcher.write(this.#live.chatId, this.#live.index, take);
    } catch (error) {
      try {
        if (taken.length === 0) throw error;
        stored = await this.#retry(taken, error);
      } catch (final) {
        this.#state = { kind: 'store-failed', error: final };
        this.#pending.length = 0;
        this.#halt();
        this.#logger.error('turn.persist_failed', {
          chatId: this.#live.chatId,
          turn: this.#live.index,
          error: codeOf(final),
        });
        return;
      }
    }
    if (stored.length === 0) return;
    this.published(stored);
  }

  /**
   * Stores `packets` again after `first` failed, within the retry window. A write whose answer was lost may have
   * been committed: storage is asked first, and packets it holds past those published are this write's (only this
   * replica writes the turn), so nothing is stored twice.
   */
  #retry(packets: readonly Packet[], first: unknown): Promise<readonly StoredPacket[]> {
    const { chatId, index: turn } = this.#live;
    this.#logger.warn('turn.persist_retrying', { chatId, turn, error: codeOf(first) });
    return retryStorage(
      async () => {
        const after = this.#live.lastSequence;
        const committed = await this.#storage.chats.listPackets({ chatId, turn, after });
        if (committed.length > 0) return committed;
        const last = await this.#storage.chats.appendPackets({ chatId, turn, packets });
        return packets.map((packet, offset) => ({ sequence: last - packets.length + 1 + offset, packet }));
      },
      { windowMs: this.#retryMs, ...omitUndefined({ signal: this.#signal }) },
    );
  }
}

function codeOf(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : 'internal_error';
}
