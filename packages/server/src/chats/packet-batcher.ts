import type { Storage, StoredPacket } from '@toolbus/storage';

/** The least time between two flushes' starts by default (see {@link PacketBatcher}'s constructor). */
const defaultSpacingMs = 4;

interface Waiting {
  readonly chatId: string;
  readonly turn: number;
  readonly take: () => readonly unknown[];
  readonly resolve: (stored: StoredPacket[]) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Persists the packets of every turn running in this process together: one storage write (one transaction) per
 * flush for all of them, instead of one per turn. A flush runs `flushMs` after the first write waiting for it (or at
 * the next event-loop pass with 0), so what every turn emitted meanwhile goes in one commit: with a thousand turns
 * streaming, that is a commit per window rather than hundreds, and a turn's text deltas of one window become one
 * stored row and one socket write per follower (see coalesceTextDeltas). A packet is published only once stored,
 * so the window is latency every packet may gain, up to `flushMs`.
 */
export class PacketBatcher {
  readonly #storage: Storage;
  readonly #flushMs: number;
  readonly #spacingMs: number;
  #waiting: Waiting[] = [];
  #scheduled = false;
  /** When the last flush began (`performance.now()`). */
  #lastFlush = Number.NEGATIVE_INFINITY;

  /**
   * `flushMs`: a fixed window after the first waiting write (default 0: none). `spacingMs` (without a window): the
   * least time between two flushes' starts (default {@link defaultSpacingMs}). A write that comes after a quiet
   * spell is flushed at the next pass, as without it; under load, when the passes come every few hundred µs, each
   * flush took a handful of turns' packets and its own commit (BEGIN and COMMIT were 3–4 % of a server's busy time
   * at 200 chats), so the writes of the passes within `spacingMs` share one: group commit, at the cost of at most
   * `spacingMs` of latency, only while flushes follow each other that closely.
   */
  constructor(storage: Storage, options: { readonly flushMs?: number; readonly spacingMs?: number } = {}) {
    this.#storage = storage;
    this.#flushMs = options.flushMs ?? 0;
    this.#spacingMs = options.spacingMs ?? defaultSpacingMs;
  }

  /**
   * Writes a turn's packets with the next batch. `take` is called when the batch is written and returns the turn's
   * packets then (so those queued during this pass join); resolves with them as stored, or rejects with the reason
   * they were not (the turn is gone, or the write failed). A turn waits for its previous write before the next.
   */
  write(chatId: string, turn: number, take: () => readonly unknown[]): Promise<StoredPacket[]> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ chatId, turn, take, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        const flush = () => void this.#flush();
        const wait =
          this.#flushMs > 0 ? this.#flushMs : this.#lastFlush + this.#spacingMs - performance.now();
        if (wait >= 1) setTimeout(flush, wait);
        else setImmediate(flush);
      }
    });
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    this.#lastFlush = performance.now();
    const waiting = this.#waiting;
    this.#waiting = [];
    const batches = waiting.map((entry) => ({
      chatId: entry.chatId,
      turn: entry.turn,
      packets: entry.take(),
    }));
    const writing = waiting.filter((_entry, index) => (batches[index]?.packets.length ?? 0) > 0);
    const written = batches.filter((batch) => batch.packets.length > 0);
    for (const [index, entry] of waiting.entries())
      if (batches[index]?.packets.length === 0) entry.resolve([]);
    if (written.length === 0) return;
    let results: Awaited<ReturnType<Storage['chats']['appendPacketBatches']>>;
    try {
      results = await this.#storage.chats.appendPacketBatches(written);
    } catch (error) {
      for (const entry of writing) entry.reject(error);
      return;
    }
    for (const [index, entry] of writing.entries()) {
      const result = results[index];
      const batch = written[index];
      if (!result || !batch) {
        entry.reject(new Error('The storage answered fewer packet batches than it was given.'));
      } else if (!result.ok) {
        entry.reject(result.error);
      } else {
        const first = result.last - batch.packets.length + 1;
        entry.resolve(batch.packets.map((packet, offset) => ({ sequence: first + offset, packet })));
      }
    }
  }
}
