import type { AppendedPacketBatch, PacketBatch, StoredPacket } from '../chat.ts';
import type { StorageDb } from '../sql/store-context.ts';
import type { ChatStore } from '../storage.ts';

/**
 * Where a database keeps each turn's packets: the one part of the chat store written per database, because it is
 * the hottest write path and the two databases are fastest in different ways (SQLite: an append-only log of
 * running turns' packets, moved when the turn ends; PostgreSQL: a per-turn counter and multi-row inserts from
 * arrays). See docs/postgres-storage.md. The hooks run inside the chat store's transactions.
 */
export interface PacketStreams {
  /** Runs a transaction that may call the hooks below: what the streams remember is undone when it rolls back. */
  write<Result>(action: () => Promise<Result>): Promise<Result>;
  /** The turn is about to end (still `running`). */
  ending(trx: StorageDb, chatId: string, turn: number): Promise<void>;
  /** Turns have ended in this transaction. */
  ended(trx: StorageDb): Promise<void>;
  /** The chat is about to be deleted. */
  deleting(trx: StorageDb, chatId: string): Promise<void>;
  /** {@link ChatStore.appendPacketBatches}, in a transaction of its own. */
  append(batches: readonly PacketBatch[]): Promise<readonly AppendedPacketBatch[]>;
  /**
   * The database's own start and end of a turn, in place of the chat store's where the query builder costs more
   * than the statements (SQLite; docs/postgres-storage.md). Same rules, same errors.
   */
  readonly turns?: Pick<ChatStore, 'startTurn' | 'finishTurn'>;
  /** {@link ChatStore.listPackets}, the cursor already checked. */
  list(options: {
    chatId: string;
    turn: number;
    after: number;
    limit: number;
  }): Promise<readonly StoredPacket[]>;
}
