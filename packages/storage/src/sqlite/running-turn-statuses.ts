import type { DatabaseSync } from 'node:sqlite';
import type { ChatTurnStatus } from '../chat.ts';
import { turnKey } from '../stores/packet-streams.ts';

/**
 * The turns one SQLite connection knows to be running, so that appending packets does not read each turn's status
 * again (with 200 turns streaming, a SELECT per turn per flush).
 *
 * What is known holds while every status change since is accounted for: this connection's own turn ends report
 * theirs (`ended`). Anything else is seen in a stamp read at the start of each transaction, and makes it forget all:
 * another connection's commit (`data_version`), or a status changed or a turn deleted by any other statement of this
 * connection, counted by temporary triggers (connection-local, not in the schema) that foreign-key cascades fire too.
 */
export function createRunningTurnStatuses(database: DatabaseSync) {
  const turnStatus = database.prepare('SELECT status FROM chat_turns WHERE chat_id = ? AND turn_index = ?');
  database.exec(`
    CREATE TEMP TABLE IF NOT EXISTS turn_status_writes (writes INTEGER NOT NULL);
    INSERT INTO turn_status_writes SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM turn_status_writes);
    CREATE TEMP TRIGGER IF NOT EXISTS turn_status_written AFTER UPDATE OF status ON main.chat_turns
      BEGIN UPDATE turn_status_writes SET writes = writes + 1; END;
    CREATE TEMP TRIGGER IF NOT EXISTS turn_deleted AFTER DELETE ON main.chat_turns
      BEGIN UPDATE turn_status_writes SET writes = writes + 1; END;`);
  const stamp = database.prepare(
    `SELECT (SELECT writes FROM temp.turn_status_writes) AS changes,
            (SELECT data_version FROM pragma_data_version) AS version`,
  );
  const statusNow = (chatId: string, turn: number) =>
    (turnStatus.get(chatId, turn) as { status: ChatTurnStatus } | undefined)?.status;
  const running = new Set<string>();
  // The stamp when what is known was last accounted for (-1: never, or rolled back).
  let changes = -1;
  let version = -1;
  // Whether this transaction reported a status change (its own writes moved the stamp).
  let reported = false;
  const read = () => stamp.get() as { changes: number; version: number };
  return {
    /** Before reading statuses (a transaction's first statement): forgets all if anything else wrote. */
    check(): void {
      const now = read();
      if (now.changes !== changes || now.version !== version) running.clear();
      ({ changes, version } = now);
      reported = false;
    },
    /**
     * Before the commit of a transaction whose status changes were all reported: what is known holds after it. The
     * stamp is read again only if it reported one (appending packets reports none).
     */
    settled(): void {
      if (reported) ({ changes, version } = read());
      reported = false;
    },
    /** The turn's status: read once, then known while it runs. */
    statusOf(chatId: string, turn: number): ChatTurnStatus | undefined {
      const key = turnKey(chatId, turn);
      if (running.has(key)) return 'running';
      const status = statusNow(chatId, turn);
      if (status === 'running') running.add(key);
      return status;
    },
    /** The turn's status as stored, read now (what is known is neither used nor changed). */
    statusNow,
    /** The turn is ending in the current transaction. */
    ended(chatId: string, turn: number): void {
      reported = true;
      running.delete(turnKey(chatId, turn));
    },
    /** The transaction rolled back: everything is forgotten. */
    forgetAll(): void {
      running.clear();
      changes = -1;
      reported = false;
    },
  };
}
