import { packetJson } from '@toolbus/spec';
import type { AppendedPacketBatch, PacketBatch } from '@toolbus/storage';
import {
  appended,
  jsonArray,
  type PacketRow,
  type PacketStreams,
  type RunStatement,
  storedPackets,
  tablePackets,
  turnKey,
} from '@toolbus/storage/backend';
import type pg from 'pg';

/**
 * Several turns' packets (a JSON array per turn, $3), each turn's after its last: its counter
 * (`chat_turns.last_sequence`) reserves their sequence numbers under its row lock. One statement, one round trip.
 */
const appendToTurns = `WITH reserved AS (
     UPDATE chat_turns t SET last_sequence = t.last_sequence + json_array_length(w.packets)
       FROM ROWS FROM (json_array_elements_text($1::json), json_array_elements_text($2::json),
                       json_array_elements($3::json)) AS w(chat_id, turn_index, packets)
      WHERE t.chat_id = w.chat_id AND t.turn_index = w.turn_index::int
     RETURNING t.chat_id, t.turn_index, t.last_sequence, w.packets
   ), inserted AS (
     INSERT INTO chat_packets (chat_id, turn_index, sequence, packet_json)
     SELECT r.chat_id, r.turn_index, r.last_sequence - json_array_length(r.packets) + p.ordinality, p.packet
       FROM reserved r, json_array_elements(r.packets) WITH ORDINALITY AS p(packet, ordinality)
   )
   SELECT chat_id, turn_index, last_sequence FROM reserved`;

/**
 * Packets on PostgreSQL: one statement per write, each turn's counter reserving its sequence numbers, sent on the
 * pool itself, as are the chat's writes ({@link PacketStreams.transaction}; docs/postgres-storage.md says why).
 */
export function createPostgresPacketStreams(pool: pg.Pool): PacketStreams {
  const onPool = runOn(pool);
  return {
    async transaction(action) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await action(runOn(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async appendClosing(run, batch) {
      await appendOne(run, batch);
    },
    async append(batches) {
      const [only] = batches;
      return batches.length === 1 && only ? [await appendOne(onPool, only)] : appendToMany(pool, batches);
    },
    list: async ({ chatId, turn, after, limit }) =>
      storedPackets(await onPool<PacketRow>(tablePackets, [chatId, turn, after, limit])),
  };
}

/**
 * One batch (`appendPackets`, a turn's packets one write at a time): a statement PostgreSQL plans faster than the
 * one for many turns (one array, no join), which made one-by-one appends 1.4× slower.
 */
async function appendOne(run: RunStatement, batch: PacketBatch): Promise<AppendedPacketBatch> {
  const { chatId, turn, packets } = batch;
  const rows = await run<{ last_sequence: number }>(
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

async function appendToMany(pool: pg.Pool, batches: readonly PacketBatch[]): Promise<AppendedPacketBatch[]> {
  // Batches of the same turn go together (one counter update each); each batch ends at its turn's share so far.
  const turns = new Map<string, { chatId: string; turn: number; packets: string[] }>();
  const ends = batches.map(({ chatId, turn, packets }) => {
    const key = turnKey(chatId, turn);
    const written = turns.get(key) ?? { chatId, turn, packets: [] };
    turns.set(key, written);
    for (const packet of packets) written.packets.push(packetJson(packet));
    return written.packets.length;
  });
  const all = [...turns.values()];
  const { rows } = await pool.query<{ chat_id: string; turn_index: number; last_sequence: number }>(
    appendToTurns,
    // Every array as JSON text (json-array-parameter.ts): pg's own writing of arrays was most of the call's CPU.
    [
      JSON.stringify(all.map((written) => written.chatId)),
      JSON.stringify(all.map((written) => written.turn)),
      jsonArray(all.map((written) => jsonArray(written.packets))),
    ],
  );
  const lastOf = new Map(rows.map((row) => [turnKey(row.chat_id, row.turn_index), row.last_sequence]));
  return batches.map((batch, index) => {
    const key = turnKey(batch.chatId, batch.turn);
    const last = lastOf.get(key);
    const total = turns.get(key)?.packets.length ?? 0;
    return appended(batch, last === undefined ? undefined : last - total + (ends[index] ?? 0));
  });
}

/** Statements on the pool (each one on its own) or on a client (in its transaction). */
function runOn(queryable: pg.Pool | pg.PoolClient): RunStatement {
  return async <Row>(text: string, values: readonly unknown[]) =>
    (await queryable.query(text, values as unknown[])).rows as Row[];
}
