import type { Storage, StoredPacket } from '@toolbus/storage';

interface Waiting {
  readonly chatId: string;
  readonly turn: number;
  readonly take: () => readonly unknown[];
  readonly resolve: (stored: StoredPacket[]) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Persists the packets of every turn running in this process together: one storage write (one transaction) per
 * event-loop pass for all of them, instead of one per turn. With a thousand turns streaming, that is one commit per
 * pass rather than hundreds; each turn still sees its packets stored before the next pass.
 */
export class PacketBatcher {
  readonly #storage: Storage;
  #waiting: Waiting[] = [];
  #scheduled = false;

  constructor(storage: Storage) {
    this.#storage = storage;
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
        setImmediate(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
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
