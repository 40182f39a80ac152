import type { AppendedPacketBatch, PacketBatch, StoredPacket } from '../chat.ts';
import type { StorageSchema } from '../sql/storage-schema.ts';
import { notFound } from '../sql/store-context.ts';
import type { ChatStore } from '../storage.ts';

/**
 * Runs SQL both databases run (PostgreSQL's `$1`, `$2`, …; SQLite reads `?1`, `?2`, …) in one transaction on the
 * database's own connection: a chat's writes, where the query builder costs over 10 % (docs/postgres-storage.md).
 */
export type RunStatement = <Row>(sql: string, values: readonly unknown[]) => Promise<Row[]>;

/**
 * Where a database keeps each turn's packets: the one part of the chat store written per database, the hottest
 * write path, fast in different ways on each (docs/postgres-storage.md). Its hooks run inside its `transaction`.
 */
export interface PacketStreams {
  /** Runs `action` in one transaction; what the streams remember is undone with it when it rolls back. */
  transaction<Result>(action: (run: RunStatement) => Promise<Result>): Promise<Result>;
  /** The turn is about to end (still `running`). */
  readonly ending?: (chatId: string, turn: number) => void;
  /** Turns have ended in this transaction. */
  readonly ended?: () => void;
  /** The chat is about to be deleted. */
  readonly deleting?: (chatId: string) => void;
  /** Appends an ended turn's closing packets after its last, inside {@link PacketStreams.transaction}. */
  appendClosing(run: RunStatement, batch: PacketBatch): Promise<void>;
  /** {@link ChatStore.appendPacketBatches}, in a transaction of its own. */
  append(batches: readonly PacketBatch[]): Promise<readonly AppendedPacketBatch[]>;
  /** {@link ChatStore.listPackets}, the cursor already checked. */
  list(options: Required<Parameters<ChatStore['listPackets']>[0]>): Promise<readonly StoredPacket[]>;
}

/** A turn's packets in `chat_packets` after a sequence (`$3`), up to a limit (`$4`): the same SQL on both databases. */
export const tablePackets =
  'SELECT sequence, packet_json FROM chat_packets WHERE chat_id = $1 AND turn_index = $2 AND sequence > $3 ORDER BY sequence LIMIT $4';

/** A packet's row as both databases read it. */
export type PacketRow = Pick<StorageSchema['chat_packets'], 'sequence' | 'packet_json'>;

/** Packet rows as the packets callers see. */
export function storedPackets(rows: readonly PacketRow[]): StoredPacket[] {
  return rows.map((row) => ({ sequence: row.sequence, packet: JSON.parse(row.packet_json) as unknown }));
}

/** What became of a batch, given its turn's last sequence after it (`undefined`: the turn does not exist). */
export function appended({ chatId, turn }: PacketBatch, last: number | undefined): AppendedPacketBatch {
  return last === undefined
    ? { ok: false, error: notFound('Turn', `${chatId}/${turn}`) }
    : { ok: true, last };
}

/** A map key of one turn. */
export function turnKey(chatId: string, turn: number): string {
  return `${chatId}\u0000${turn}`;
}
