import type { StoredPacket } from '@toolbus/storage';

/**
 * A turn running in this process: its persisted packets (in memory too, so followers need no database read), and
 * the controller that stops it. Followers only ever see packets that are already persisted, so a client that
 * reconnects after a crash never has seen a packet the database lost.
 */
export class LiveTurn {
  readonly chatId: string;
  readonly index: number;
  readonly userId: string;
  readonly controller = new AbortController();
  /** Settles when the turn's end and history are written. */
  readonly ended: Promise<void>;
  readonly #packets: StoredPacket[] = [];
  readonly #waiters = new Set<() => void>();
  readonly #watchers = new Set<() => void>();
  #done = false;
  #resolveEnded!: () => void;

  constructor(options: { chatId: string; index: number; userId: string }) {
    this.chatId = options.chatId;
    this.index = options.index;
    this.userId = options.userId;
    this.ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
  }

  /** True once every packet is published and the turn's end is written. */
  get done(): boolean {
    return this.#done;
  }

  /** The sequence of the last published packet (0 before the first). */
  get lastSequence(): number {
    return this.#packets.length;
  }

  /** Makes persisted packets visible to followers; sequences must continue without a gap. */
  publish(packets: readonly StoredPacket[]): void {
    for (const packet of packets) {
      if (packet.sequence !== this.#packets.length + 1) {
        throw new Error(`packet sequence ${packet.sequence} after ${this.#packets.length}`);
      }
      this.#packets.push(packet);
    }
    this.#wake();
  }

  /** The published packets after sequence `after`, in order. */
  packetsAfter(after: number): readonly StoredPacket[] {
    return this.#packets.slice(Math.max(0, after));
  }

  /**
   * Calls `listener` synchronously after every publish and at the end (then read {@link lastSequence},
   * {@link packetsAfter} and {@link done}); returns the function that stops it. The listener of a stream writer
   * that writes to its socket straight away: no promise and no generator step per packet. A listener that throws
   * is dropped; the turn and the other followers go on.
   */
  watch(listener: () => void): () => void {
    this.#watchers.add(listener);
    return () => {
      this.#watchers.delete(listener);
    };
  }

  /** Marks the turn ended: followers drain what is left and finish. */
  finish(): void {
    this.#done = true;
    this.#wake();
    this.#resolveEnded();
  }

  /** The packets after `after`, then each new one as it is published, until the turn ends or `signal` aborts. */
  async *follow(after: number, signal?: AbortSignal): AsyncGenerator<StoredPacket> {
    let position = Math.max(0, after);
    // One abort listener per follower, not one per wait: a follower waits once per packet.
    let wake: (() => void) | undefined;
    const onAbort = () => wake?.();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        while (position < this.#packets.length) {
          yield this.#packets[position] as StoredPacket;
          position += 1;
        }
        if (this.#done || signal?.aborted) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
          this.#waiters.add(resolve);
        });
        wake = undefined;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  #wake(): void {
    if (this.#waiters.size > 0) {
      const waiters = [...this.#waiters];
      this.#waiters.clear();
      for (const wake of waiters) wake();
    }
    for (const watcher of this.#watchers) {
      try {
        watcher();
      } catch {
        // A follower's failure (its socket) is its own: the turn's writes go on.
        this.#watchers.delete(watcher);
      }
    }
  }
}
