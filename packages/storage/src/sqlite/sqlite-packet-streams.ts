import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { packetJson } from '@toolbus/spec';
import type { AppendedPacketBatch } from '../chat.ts';
import { notFound } from '../sql/store-context.ts';
import type { PacketStreams, Statements } from '../stores/packet-streams.ts';
import { createRunningPacketLog, type LogAppend } from './running-packet-log.ts';
import { createRunningTurnStatuses } from './running-turn-statuses.ts';

/**
 * Packets on SQLite: a running turn's go to the append-only log (see running-packet-log.ts), an ended one's (closing
 * packets written after its end) straight to `chat_packets`. The chat's writes (appending, starting and ending a
 * turn the hottest) run as prepared statements in one IMMEDIATE transaction, taking the connection from the query
 * builder (`exclusive`) for the time they run: the builder would cost more than the statements (a few µs per query,
 * 3–5× the statement; docs/postgres-storage.md).
 */
export function createSqlitePacketStreams(
  database: DatabaseSync,
  exclusive: <Result>(action: () => Result | Promise<Result>) => Promise<Result>,
): PacketStreams {
  const log = createRunningPacketLog(database);
  // Statuses of running turns, known without a SELECT per turn per append while only these writes change them.
  const statuses = createRunningTurnStatuses(database);
  // Prepared once: a server writing packets for many turns runs thousands of transactions a second.
  const begin = database.prepare('BEGIN IMMEDIATE');
  const commit = database.prepare('COMMIT');
  const rollback = database.prepare('ROLLBACK');
  const prepared = new Map<string, StatementSync>();
  const statements: Statements = {
    async rows<Row>(text: string, values: readonly unknown[]) {
      let statement = prepared.get(text);
      if (statement === undefined) {
        statement = database.prepare(text.replaceAll(/\$(\d+)/g, '?$1'));
        prepared.set(text, statement);
      }
      return statement.all(...(values as SQLInputValue[])) as Row[];
    },
  };
  // BEGIN runs before anything is awaited: when another connection holds the lock, it throws at once and
  // `exclusive` waits and tries again. A roll-back makes the log forget what it remembered.
  const rolledBack = (error: unknown): never => {
    rollback.run();
    log.rolledBack();
    statuses.forgetAll();
    throw error;
  };
  // The chat writes report every status they change (started, ending, deleting): what the statuses know holds
  // after them.
  const transaction = <Result>(action: (statements: Statements) => Promise<Result>) =>
    exclusive(() => {
      begin.run();
      statuses.check();
      return action(statements)
        .then((result) => {
          statuses.settled();
          commit.run();
          return result;
        })
        .catch(rolledBack);
    });
  // Appending packets, the hottest write, stays synchronous: no promise between its statements.
  const transactionSync = <Result>(action: () => Result) =>
    exclusive(() => {
      begin.run();
      try {
        statuses.check();
        const result = action();
        statuses.settled();
        commit.run();
        return result;
      } catch (error) {
        return rolledBack(error);
      }
    });
  const lastSequence = database.prepare(
    'SELECT COALESCE(MAX(sequence), 0) AS last FROM chat_packets WHERE chat_id = ? AND turn_index = ?',
  );
  const insertPacket = database.prepare(
    'INSERT INTO chat_packets (chat_id, turn_index, sequence, packet_json) VALUES (?, ?, ?, ?)',
  );
  const selectPackets = database.prepare(
    'SELECT sequence, packet_json FROM chat_packets WHERE chat_id = ? AND turn_index = ? AND sequence > ? ORDER BY sequence LIMIT ?',
  );
  const tableLast = (chatId: string, turn: number) =>
    (lastSequence.get(chatId, turn) as { last: number }).last;
  // An ended turn's packets go straight to chat_packets, after its last.
  const appendEnded = (chatId: string, turn: number, packets: readonly unknown[]): number => {
    let last = tableLast(chatId, turn);
    for (const packet of packets) {
      last += 1;
      insertPacket.run(chatId, turn, last, packetJson(packet));
    }
    return last;
  };

  return {
    transaction,
    started: (chatId, turn) => log.begin(chatId, turn),
    // Moved while still running: the log finds a turn it does not know among the running ones.
    ending: (chatId, turn) => {
      statuses.ended(chatId, turn);
      log.move(chatId, turn);
    },
    ended: () => log.sweep(),
    deleting: (chatId) => {
      statuses.chatDeleted(chatId);
      log.forgetChat(chatId);
    },
    appendClosing: async (_statements, { chatId, turn, packets }) => {
      appendEnded(chatId, turn, packets);
    },
    append: (batches) =>
      transactionSync(() => {
        // Each batch is checked first (a missing turn fails alone); the running turns' packets then go to the
        // log together, in a few multi-row inserts (a single turn's too: ten packets are one statement, not ten).
        const results: (AppendedPacketBatch | undefined)[] = [];
        const running: { readonly index: number; readonly append: LogAppend }[] = [];
        for (const [index, { chatId, turn, packets }] of batches.entries()) {
          const status = statuses.statusOf(chatId, turn);
          if (status === undefined) {
            results[index] = { ok: false, error: notFound('Turn', `${chatId}/${turn}`) };
          } else if (status === 'running') {
            const packetsJson = packets.map(packetJson);
            running.push({
              index,
              append: { chatId, turn, packetsJson, tableLast: () => tableLast(chatId, turn) },
            });
          } else {
            results[index] = { ok: true, last: appendEnded(chatId, turn, packets) };
          }
        }
        const lasts = log.appendAll(running.map((entry) => entry.append));
        for (const [position, entry] of running.entries()) {
          results[entry.index] = { ok: true, last: lasts[position] as number };
        }
        return results as AppendedPacketBatch[];
      }),
    list: ({ chatId, turn, after, limit }) =>
      exclusive(() => {
        const rows = (
          selectPackets.all(chatId, turn, after, limit) as unknown as {
            sequence: number;
            packet_json: string;
          }[]
        ).map((row) => ({ sequence: row.sequence, packetJson: row.packet_json }));
        statuses.check();
        const status = statuses.statusOf(chatId, turn);
        if (rows.length < limit && status === 'running') {
          rows.push(...log.read(chatId, turn, rows.at(-1)?.sequence ?? after, limit - rows.length));
        } else if (status !== 'running') log.forgetEnded(chatId, turn);
        return rows.map((row) => ({ sequence: row.sequence, packet: JSON.parse(row.packetJson) as unknown }));
      }),
  };
}
