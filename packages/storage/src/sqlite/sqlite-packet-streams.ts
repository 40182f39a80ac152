import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { sqliteMigrationTarget } from '../sql/sqlite-migration-target.ts';
import {
  appended,
  type PacketRow,
  type PacketStreams,
  type RunStatement,
  storedPackets,
  tablePackets,
} from '../stores/packet-streams.ts';
import { createRunningPacketLog } from './running-packet-log.ts';
import { createRunningTurnStatuses } from './running-turn-statuses.ts';

/**
 * Packets on SQLite: a running turn's in the append-only log (running-packet-log.ts), an ended one's straight in
 * `chat_packets`. The chat's writes run as prepared statements in one IMMEDIATE transaction, holding the builder's
 * connection (`exclusive`) while they run.
 */
export function createSqlitePacketStreams(
  database: DatabaseSync,
  { exclusive, prepare }: Pick<ReturnType<typeof sqliteMigrationTarget>, 'exclusive' | 'prepare'>,
): PacketStreams {
  const log = createRunningPacketLog(prepare);
  // Statuses of running turns, known without a SELECT per turn per append while only these writes change them.
  const statuses = createRunningTurnStatuses(database);
  const begin = prepare('BEGIN IMMEDIATE');
  const commit = prepare('COMMIT');
  const rollback = prepare('ROLLBACK');
  const run: RunStatement = async <Row>(text: string, values: readonly unknown[]) =>
    prepare(text).all(...(values as SQLInputValue[])) as Row[];
  const committed = <Result>(result: Result) => {
    statuses.settled();
    commit.run();
    return result;
  };
  // A roll-back makes the log and the statuses forget what they remembered.
  const rolledBack = (error: unknown): never => {
    rollback.run();
    log.rolledBack();
    statuses.forgetAll();
    throw error;
  };
  // BEGIN runs before anything is awaited: when another connection holds the lock, it throws at once and
  // `exclusive` waits and tries again. Synchronous work (appending packets) commits with no promise between its
  // statements.
  const transaction = <Result>(action: () => Result | Promise<Result>, readsKnownStatuses = true) =>
    exclusive(() => {
      begin.run();
      try {
        if (readsKnownStatuses) statuses.check();
        const result = action();
        return result instanceof Promise ? result.then(committed).catch(rolledBack) : committed(result);
      } catch (error) {
        return rolledBack(error);
      }
    });
  return {
    transaction: (action) => transaction(() => action(run)),
    // Moved while still running: the log finds a turn it does not know among the running ones.
    ending: (chatId, turn) => {
      statuses.ended(chatId, turn);
      log.move(chatId, turn);
    },
    ended: () => log.sweep(),
    deleting: (chatId) => log.forgetChat(chatId),
    appendClosing: async (_run, batch) => {
      log.appendEnded(batch);
    },
    append: (batches) => {
      // Several turns' batches read what is known of their statuses (one stamp read for all); one turn's batch
      // reads its status, which costs what the stamp does.
      const known = batches.length > 1;
      const statusOf = known ? statuses.statusOf : statuses.statusNow;
      return transaction(() => {
        // Each batch is checked first (a missing turn fails alone); the running turns' packets then go to the
        // log together, in a few multi-row inserts.
        const status = batches.map((batch) => statusOf(batch.chatId, batch.turn));
        const lasts = log.appendAll(batches.filter((_batch, index) => status[index] === 'running'));
        let running = 0;
        return batches.map((batch, index) =>
          appended(
            batch,
            status[index] === 'running' ? lasts[running++] : status[index] && log.appendEnded(batch),
          ),
        );
      }, known);
    },
    list: ({ chatId, turn, after, limit }) =>
      exclusive(() => {
        const rows = prepare(tablePackets).all(chatId, turn, after, limit) as unknown as PacketRow[];
        statuses.check();
        const status = statuses.statusOf(chatId, turn);
        if (rows.length < limit && status === 'running') {
          rows.push(...log.read(chatId, turn, rows.at(-1)?.sequence ?? after, limit - rows.length));
        } else if (status !== 'running') log.forgetEnded(chatId, turn);
        return storedPackets(rows);
      }),
  };
}
