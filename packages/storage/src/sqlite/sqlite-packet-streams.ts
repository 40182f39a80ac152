import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { packetJson } from '@toolbus/spec';
import type { AppendedPacketBatch, ChatTurnStatus } from '../chat.ts';
import type { StorageSchema } from '../sql/storage-schema.ts';
import { constraintError, notFound } from '../sql/store-context.ts';
import { toTurn, turnAlreadyEnded, turnStillRunning } from '../stores/chat-store.ts';
import type { PacketStreams } from '../stores/packet-streams.ts';
import { inTransaction } from './in-transaction.ts';
import { createRunningPacketLog, type LogAppend, type RunningPacketLog } from './running-packet-log.ts';

/**
 * Packets on SQLite: a running turn's go to the append-only log (see running-packet-log.ts), an ended one's (closing
 * packets written after its end) straight to `chat_packets`. Appending, starting and ending a turn are the hottest
 * writes, so they run as synchronous prepared statements in one IMMEDIATE transaction, taking the connection from
 * the query builder (`exclusive`) for the time they run: the builder would cost more than the statements (a few
 * µs per query, 3–5× the statement; docs/postgres-storage.md). They keep the chat store's rules and errors.
 */
export function createSqlitePacketStreams(
  database: DatabaseSync,
  exclusive: <Result>(action: () => Result) => Promise<Result>,
): PacketStreams {
  const log = createRunningPacketLog(database);
  const write = <Result>(action: () => Result) =>
    exclusive(() => log.transactionSync(() => inTransaction(database, action)));
  const turnStatus = database.prepare('SELECT status FROM chat_turns WHERE chat_id = ? AND turn_index = ?');
  const lastSequence = database.prepare(
    'SELECT COALESCE(MAX(sequence), 0) AS last FROM chat_packets WHERE chat_id = ? AND turn_index = ?',
  );
  const insertPacket = database.prepare(
    'INSERT INTO chat_packets (chat_id, turn_index, sequence, packet_json) VALUES (?, ?, ?, ?)',
  );
  const selectPackets = database.prepare(
    'SELECT sequence, packet_json FROM chat_packets WHERE chat_id = ? AND turn_index = ? AND sequence > ? ORDER BY sequence LIMIT ?',
  );
  const statusOf = (chatId: string, turn: number) =>
    (turnStatus.get(chatId, turn) as { status: ChatTurnStatus } | undefined)?.status;
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
    turns: createSqliteTurns(database, write, log, appendEnded),
    write: (action) => log.transaction(action),
    // Moved while still running: the log finds a turn it does not know among the running ones.
    async ending(_trx, chatId, turn) {
      log.move(chatId, turn);
    },
    async ended() {
      log.sweep();
    },
    async deleting(_trx, chatId) {
      log.forgetChat(chatId);
    },
    append: (batches) =>
      write(() => {
        // Each batch is checked first (a missing turn fails alone); the running turns' packets then go to the
        // log together, in a few multi-row inserts (a single turn's too: ten packets are one statement, not ten).
        const results: (AppendedPacketBatch | undefined)[] = [];
        const running: { readonly index: number; readonly append: LogAppend }[] = [];
        for (const [index, { chatId, turn, packets }] of batches.entries()) {
          const status = statusOf(chatId, turn);
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
        const status = statusOf(chatId, turn);
        if (rows.length < limit && status === 'running') {
          rows.push(...log.read(chatId, turn, rows.at(-1)?.sequence ?? after, limit - rows.length));
        } else if (status !== 'running') log.forgetEnded(chatId, turn);
        return rows.map((row) => ({ sequence: row.sequence, packet: JSON.parse(row.packetJson) as unknown }));
      }),
  };
}

/** Starting and ending a turn as prepared statements, in the packet log's transaction (`write`). */
function createSqliteTurns(
  database: DatabaseSync,
  write: <Result>(action: () => Result) => Promise<Result>,
  log: RunningPacketLog,
  appendEnded: (chatId: string, turn: number, packets: readonly unknown[]) => number,
): NonNullable<PacketStreams['turns']> {
  const chatExists = database.prepare('SELECT 1 AS found FROM chats WHERE id = ?');
  const runningTurn = database.prepare(
    "SELECT turn_index FROM chat_turns WHERE chat_id = ? AND status = 'running'",
  );
  const nextTurn = database.prepare(
    'SELECT COALESCE(MAX(turn_index) + 1, 0) AS next FROM chat_turns WHERE chat_id = ?',
  );
  const insertTurn = database.prepare(
    'INSERT INTO chat_turns (chat_id, turn_index, kind, status, started_at, input_json) VALUES (?, ?, ?, ?, ?, ?)',
  );
  // The turn's end and the row as it then is, in one statement (no read before and after).
  const endRunningTurn = database.prepare(
    "UPDATE chat_turns SET status = ?, end_reason = ?, ended_at = ? WHERE chat_id = ? AND turn_index = ? AND status = 'running' RETURNING *",
  );
  const nextPosition = database.prepare(
    'SELECT COALESCE(MAX(position) + 1, 0) AS next FROM chat_messages WHERE chat_id = ?',
  );
  const insertMessage = database.prepare(
    'INSERT INTO chat_messages (id, chat_id, turn_index, position, message_json, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const touchChat = database.prepare(
    'UPDATE chats SET updated_at = ?, activity = (SELECT COALESCE(MAX(activity), 0) + 1 FROM chats) WHERE id = ?',
  );
  const turnStatus = database.prepare('SELECT status FROM chat_turns WHERE chat_id = ? AND turn_index = ?');
  const statusOf = (chatId: string, turn: number) =>
    (turnStatus.get(chatId, turn) as { status: ChatTurnStatus } | undefined)?.status;
  return {
    startTurn: ({ chatId, kind = 'chat', input = [] }) =>
      write(() => {
        if (chatExists.get(chatId) === undefined) throw notFound('Chat', chatId);
        const running = runningTurn.get(chatId) as { turn_index: number } | undefined;
        if (running !== undefined) throw turnStillRunning(chatId, running.turn_index);
        const { next } = nextTurn.get(chatId) as { next: number };
        const row = {
          chat_id: chatId,
          turn_index: next,
          kind,
          status: 'running',
          end_reason: null,
          started_at: new Date().toISOString(),
          ended_at: null,
          input_json: JSON.stringify(input),
        };
        try {
          insertTurn.run(chatId, next, kind, row.status, row.started_at, row.input_json);
        } catch (error) {
          throw constraintError('Starting a turn', error);
        }
        log.begin(chatId, next);
        return toTurn(row);
      }),
    finishTurn: ({ chatId, turn, status, reason, messages = [], packets = [] }) =>
      write(() => {
        // Moved while still running (a turn that is not running has no logged rows; a refusal rolls it back).
        log.move(chatId, turn);
        const now = new Date().toISOString();
        let ended: StorageSchema['chat_turns'] | undefined;
        try {
          ended = endRunningTurn.get(status, reason ?? null, now, chatId, turn) as typeof ended;
        } catch (error) {
          throw constraintError('Ending a turn', error);
        }
        if (ended === undefined) {
          const current = statusOf(chatId, turn);
          if (current === undefined) throw notFound('Turn', `${chatId}/${turn}`);
          throw turnAlreadyEnded(chatId, turn, current);
        }
        log.sweep();
        if (packets.length > 0) appendEnded(chatId, turn, packets);
        let { next } = nextPosition.get(chatId) as { next: number };
        for (const message of messages) {
          insertMessage.run(randomUUID(), chatId, turn, next, JSON.stringify(message), now);
          next += 1;
        }
        if (messages.length > 0) touchChat.run(now, chatId);
        return toTurn({ ...ended });
      }),
  };
}
