import { packetJson } from '@toolbus/spec';
import type { AppendedPacketBatch, PacketBatch } from '@toolbus/storage';
import {
  appended,
  jsonArray,
  type PacketRow,
  type PacketStreams,
  type Statements,
  storedPackets,
  tablePackets,
  turnKey,
} from '@toolbus/storage/backend';
import type pg from 'pg';
import { inPostgresTransaction } from './postgres-transaction.ts';

/**
 * Packets on PostgreSQL: each turn's counter (`chat_turns.last_sequence`) reserves sequence numbers under its row
 * lock, and one statement inserts every packet of a write from JSON arrays, so a pass over many turns is one round
 * trip. PostgreSQL's own SQL, kept for the hottest write (docs/postgres-storage.md), sent on the pool itself, as
 * are the chat's writes ({@link PacketStreams.transaction}): through the query builder a turn cost about 1.2× the
 * client CPU (BENCHMARKS.md).
 */
export function createPostgresPacketStreams(pool: pg.Pool): PacketStreams {
  const onPool = statementsOn(pool);
  return {
    transaction: (action) => inPostgresTransaction(pool, (client) => action(statementsOn(client))),
    async appendClosing(statements, batch) {
      await appendOne(statements, batch);
    },
    async append(batches) {
      const [only] = batches;
      if (batches.length === 1 && only) return [await appendOne(onPool, only)];
      // Batches of the same turn are counted together (one counter update each), each packet carrying its
      // position within its turn's share of the call.
      const totals = new Map<string, number>();
      const ends: number[] = [];
      const packets = {
        chats: [] as string[],
        turns: [] as number[],
        positions: [] as number[],
        texts: [] as string[],
      };
      for (const batch of batches) {
        const key = turnKey(batch.chatId, batch.turn);
        let position = totals.get(key) ?? 0;
        for (const packet of batch.packets) {
          position += 1;
          packets.chats.push(batch.chatId);
          packets.turns.push(batch.turn);
          packets.positions.push(position);
          packets.texts.push(packetJson(packet));
        }
        totals.set(key, position);
        ends.push(position);
      }
      const turns = [...new Map(batches.map((batch) => [turnKey(batch.chatId, batch.turn), batch])).values()];
      const { rows } = await pool.query<{ chat_id: string; turn_index: number; last_sequence: number }>(
        `WITH wanted AS (
           SELECT w.chat_id, w.turn_index::int, w.count::int
             FROM ROWS FROM (json_array_elements_text($1::json), json_array_elements_text($2::json),
                             json_array_elements_text($3::json)) AS w(chat_id, turn_index, count)
         ), reserved AS (
           UPDATE chat_turns t SET last_sequence = t.last_sequence + w.count
             FROM wanted w WHERE t.chat_id = w.chat_id AND t.turn_index = w.turn_index
           RETURNING t.chat_id, t.turn_index, t.last_sequence, w.count
         ), inserted AS (
           INSERT INTO chat_packets (chat_id, turn_index, sequence, packet_json)
           SELECT p.chat_id, p.turn_index::int, r.last_sequence - r.count + p.position::int, p.packet
             FROM ROWS FROM (json_array_elements_text($4::json), json_array_elements_text($5::json),
                             json_array_elements_text($6::json), json_array_elements($7::json))
                  AS p(chat_id, turn_index, position, packet)
             JOIN reserved r ON r.chat_id = p.chat_id AND r.turn_index = p.turn_index::int
         )
         SELECT chat_id, turn_index, last_sequence FROM reserved`,
        // Every array as JSON text (json-array-parameter.ts): pg's own writing of arrays was most of the call's CPU.
        [
          JSON.stringify(turns.map((batch) => batch.chatId)),
          JSON.stringify(turns.map((batch) => batch.turn)),
          JSON.stringify(turns.map((batch) => totals.get(turnKey(batch.chatId, batch.turn)) ?? 0)),
          JSON.stringify(packets.chats),
          JSON.stringify(packets.turns),
          JSON.stringify(packets.positions),
          jsonArray(packets.texts),
        ],
      );
      const lastOf = new Map(rows.map((row) => [turnKey(row.chat_id, row.turn_index), row.last_sequence]));
      return batches.map((batch, index) => {
        const key = turnKey(batch.chatId, batch.turn);
        const last = lastOf.get(key);
        return appended(
          batch,
          last === undefined ? undefined : last - (totals.get(key) ?? 0) + (ends[index] ?? 0),
        );
      });
    },
    list: async ({ chatId, turn, after, limit }) =>
      storedPackets(await onPool.rows<PacketRow>(tablePackets, [chatId, turn, after, limit])),
  };
}

/**
 * One batch (`appendPackets`, a turn's packets one write at a time): a statement PostgreSQL plans faster than the
 * one for many turns (one array, no join), which made one-by-one appends 1.4× slower.
 */
async function appendOne(statements: Statements, batch: PacketBatch): Promise<AppendedPacketBatch> {
  const { chatId, turn, packets } = batch;
  const rows = await statements.rows<{ last_sequence: number }>(
    `WITH reserved AS (
       UPDATE chat_turns SET last_sequence = last_sequence + $3
        WHERE chat_id = $1 AND turn_index = $2 RETURNING last_sequence
     ), inserted AS (
       INSERT INTO chat_packets (chat_id, turn_index, sequence, packet_json)
       SELECT $1, $2, reserved.last_sequence - $3 + p.ordinality, p.packet
         FROM reserved, json_array_elements($4::json) WITH ORDINALITY AS p(packet, ordinality)
     )
     SELECT last_sequence FROM reserved`,
    [chatId, turn, packets.length, jsonArray(packets.map(packetJson))],
  );
  return appended(batch, rows[0]?.last_sequence);
}

/** Statements on the pool (each one on its own) or on a client (in its transaction). */
function statementsOn(queryable: pg.Pool | pg.PoolClient): Statements {
  return {
    rows: async <Row>(text: string, values: readonly unknown[]) =>
      (await queryable.query(text, values as unknown[])).rows as Row[],
  };
}
