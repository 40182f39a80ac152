import type { StatementSync } from 'node:sqlite';
import { packetJson } from '@toolbus/spec';
import type { PacketBatch } from '../chat.ts';
import type { StorageSchema } from '../sql/storage-schema.ts';
import { type PacketRow, turnKey } from '../stores/packet-streams.ts';

/** How many rows the log's head must have gained before it is swept. */
const sweepEvery = 2000;

/** How many turns written by other processes are remembered before what was learnt is dropped. */
const maximumLearntTurns = 10_000;

/** Rows per multi-row insert: 4 parameters each, well under SQLite's limit of 32,766 per statement. */
const rowsPerInsert = 100;

/** A row of the log as a scan reads it. */
type LogRow = Omit<StorageSchema['chat_packets'], 'packet_json'> & { id: number };

/** What this process knows of a running turn's logged rows: their ids in sequence order, and the last sequence. */
interface LoggedTurn {
  last: number;
  readonly ids: number[];
  /** Whether this process writes the turn (it started or appended to it), rather than found it in the log. */
  own: boolean;
}

/**
 * The packets of running turns, in the append-only `chat_packet_log` table (migration 11), until their turn ends
 * and `move` copies them to `chat_packets`. With a thousand turns streaming, a commit then writes the log's last
 * pages instead of one page per turn (2–3× less CPU per packet: `npm run bench -- running-packets`).
 *
 * The log has no index, so what this process appends it also remembers (row ids per turn). A turn it does not know
 * (written by a process that died, or by another on the same file) is found by one scan of the log, which fills in
 * every turn it saw. The writes run in the caller's transaction (`rolledBack` forgets all after a roll-back). `read`
 * runs outside one: a turn moved and swept by another process between its statements reads short, never wrong, and
 * the next listing finds its rows in `chat_packets`.
 */
export function createRunningPacketLog(prepare: (sql: string) => StatementSync) {
  /**
   * Inserts rows of 4 parameters each into `table` by a few multi-row statements; `inserted` learns each statement's
   * row count and last id (its rows take consecutive ids in the order listed: AUTOINCREMENT).
   */
  const inserts = { chat_packet_log: [] as StatementSync[], chat_packets: [] as StatementSync[] };
  const insert = (
    table: keyof typeof inserts,
    parameters: readonly (string | number)[],
    inserted?: (rows: number, lastId: number) => void,
  ) => {
    for (let first = 0; first < parameters.length; first += rowsPerInsert * 4) {
      const rows = Math.min(rowsPerInsert, (parameters.length - first) / 4);
      // By row count: each statement's text is built and looked up once, not at every append (the hottest write).
      const statement =
        inserts[table][rows] ??
        prepare(
          `INSERT INTO ${table} (chat_id, turn_index, sequence, packet_json) VALUES ${'(?, ?, ?, ?), '.repeat(rows - 1)}(?, ?, ?, ?)`,
        );
      inserts[table][rows] = statement;
      const { lastInsertRowid } = statement.run(...parameters.slice(first, first + rows * 4));
      inserted?.(rows, Number(lastInsertRowid));
    }
  };
  const selectRows = prepare(
    'SELECT sequence, packet_json FROM chat_packet_log WHERE id IN (SELECT value FROM json_each(?)) AND sequence > ? ORDER BY id',
  );
  // Running turns' rows in an id range: an ended turn's stay in the log (moved, not yet swept) but are no longer
  // its packets. In id order, which is each turn's sequence order.
  const selectRunning = prepare(
    `SELECT l.id, l.chat_id, l.turn_index, l.sequence FROM chat_packet_log l
     JOIN chat_turns t ON t.chat_id = l.chat_id AND t.turn_index = l.turn_index AND t.status = 'running'
     WHERE l.id > ? AND l.id <= ? ORDER BY l.id`,
  );
  const moveRows = prepare(
    `INSERT INTO chat_packets (chat_id, turn_index, sequence, packet_json)
     SELECT chat_id, turn_index, sequence, packet_json FROM chat_packet_log
     WHERE id IN (SELECT value FROM json_each(?)) ORDER BY sequence`,
  );
  // Rows of ended turns stay until the log's head is swept in one range (deleting a turn's rows would touch a page
  // per row). A row of a turn still running (one another process writes) is never swept.
  const sweepHead = prepare(
    `DELETE FROM chat_packet_log WHERE id < ? AND NOT EXISTS (
       SELECT 1 FROM chat_turns t WHERE t.chat_id = chat_packet_log.chat_id
         AND t.turn_index = chat_packet_log.turn_index AND t.status = 'running')`,
  );
  // The log's last id, and SQLite's count of other connections' commits to the file (`data_version`), read together.
  const logEnd = prepare(
    'SELECT COALESCE(MAX(id), 0) AS last, (SELECT data_version FROM pragma_data_version) AS version FROM chat_packet_log',
  );
  const lastSequence = prepare(
    'SELECT COALESCE(MAX(sequence), 0) AS last FROM chat_packets WHERE chat_id = ? AND turn_index = ?',
  );
  /** A turn's last sequence in `chat_packets`. */
  const tableLast = (chatId: string, turn: number) =>
    (lastSequence.get(chatId, turn) as { last: number }).last;
  const deleteChat = prepare('DELETE FROM chat_packet_log WHERE chat_id = ?');

  const turns = new Map<string, LoggedTurn>();
  // Reads the rows other connections appended to the log into the turns this process does not write: once a scan
  // of the whole log, then only of what is new. While no other connection has committed (`data_version` unchanged),
  // every row since is this connection's own and there is nothing to learn: a turn's first append skips the scan.
  let learntUpTo = 0;
  // `data_version` when the log was last learnt (-1: never, or rolled back).
  let learntVersion = -1;
  const learn = () => {
    const { last: upTo, version } = logEnd.get() as { last: number; version: number };
    const othersWrote = version !== learntVersion;
    learntVersion = version;
    // Ids only grow (AUTOINCREMENT): with none above `learntUpTo`, or only this connection's, all is known.
    if (!othersWrote || upTo <= learntUpTo) {
      learntUpTo = upTo;
      return;
    }
    const rows = selectRunning.all(learntUpTo, upTo) as unknown as LogRow[];
    learntUpTo = upTo;
    // Past a bound of turns learnt (ended elsewhere, never read again), all is learnt again from the start.
    if (
      turns.size > maximumLearntTurns &&
      [...turns.values()].filter((turn) => !turn.own).length > maximumLearntTurns
    ) {
      for (const [key, state] of turns) if (!state.own) turns.delete(key);
      learntUpTo = 0;
      learntVersion = -1;
      learn();
      return;
    }
    for (const row of rows) {
      const key = turnKey(row.chat_id, row.turn_index);
      let state = turns.get(key);
      if (state?.own) continue;
      if (!state) {
        state = { last: 0, ids: [], own: false };
        turns.set(key, state);
      }
      state.ids.push(row.id);
      state.last = row.sequence;
    }
  };
  // Sweeps the head once the rows below the oldest turn this process writes are worth a statement. Another
  // process's turns do not hold the head back: the sweep spares running turns' rows.
  let swept = 0;
  const sweep = () => {
    let head = Number.POSITIVE_INFINITY;
    for (const state of turns.values()) {
      const first = state.ids[0];
      if (state.own && first !== undefined && first < head) head = first;
    }
    if (head === Number.POSITIVE_INFINITY) head = (logEnd.get() as { last: number }).last + 1;
    if (head - swept < sweepEvery) return;
    sweepHead.run(head);
    swept = head;
  };
  // The state of a turn this process is about to append to (remembered as its own).
  const owned = (chatId: string, turn: number): LoggedTurn => {
    let state = known(chatId, turn);
    if (!state) {
      state = { last: tableLast(chatId, turn), ids: [], own: true };
      turns.set(turnKey(chatId, turn), state);
    }
    state.own = true;
    return state;
  };
  const known = (chatId: string, turn: number): LoggedTurn | undefined => {
    const key = turnKey(chatId, turn);
    if (!turns.get(key)?.own) learn();
    return turns.get(key);
  };

  return {
    /** Forgets what was learnt of a turn that has ended (read by a process that did not write it). */
    forgetEnded(chatId: string, turn: number): void {
      const key = turnKey(chatId, turn);
      if (turns.get(key)?.own === false) turns.delete(key);
    },
    /**
     * Appends packets to running turns, each after its last sequence, in a few multi-row inserts (one turn's batch
     * of ten is one statement); the new last sequence of each, in order.
     */
    appendAll(batches: readonly PacketBatch[]): number[] {
      // Each row's parameters, and the turn its id goes to.
      const parameters: (string | number)[] = [];
      const owners: LoggedTurn[] = [];
      const lasts = batches.map(({ chatId, turn, packets }) => {
        const state = owned(chatId, turn);
        for (const packet of packets) {
          state.last += 1;
          parameters.push(chatId, turn, state.last, packetJson(packet));
          owners.push(state);
        }
        return state.last;
      });
      let row = 0;
      insert('chat_packet_log', parameters, (rows, lastId) => {
        for (let id = lastId - rows + 1; id <= lastId; id += 1) owners[row++]?.ids.push(id);
      });
      return lasts;
    },
    /** Appends an ended turn's packets (closing ones, or written after its end) straight to `chat_packets`. */
    appendEnded({ chatId, turn, packets }: PacketBatch): number {
      const last = tableLast(chatId, turn);
      insert(
        'chat_packets',
        packets.flatMap((packet, index) => [chatId, turn, last + index + 1, packetJson(packet)]),
      );
      return last + packets.length;
    },
    /** The turn's logged rows after `after`, up to `limit`, in sequence order. */
    read(chatId: string, turn: number, after: number, limit: number): PacketRow[] {
      const state = known(chatId, turn);
      if (!state) return [];
      // The logged rows carry consecutive sequences ending at `last`: those after `after` start at this index.
      const from = Math.max(0, after - (state.last - state.ids.length));
      const ids = state.ids.slice(from, from + limit);
      return ids.length === 0 ? [] : (selectRows.all(JSON.stringify(ids), after) as unknown as PacketRow[]);
    },
    /** Copies the turn's logged rows to `chat_packets` (its turn is ending, still `running`) and forgets the turn. */
    move(chatId: string, turn: number): void {
      const state = known(chatId, turn);
      if (!state) return;
      if (state.ids.length > 0) moveRows.run(JSON.stringify(state.ids));
      turns.delete(turnKey(chatId, turn));
    },
    /** Deletes ended turns' rows from the log's head, once enough of them have gathered (after a turn's end). */
    sweep,
    /** Deletes every logged row of a chat (the chat is being deleted). */
    forgetChat(chatId: string): void {
      deleteChat.run(chatId);
      const prefix = `${chatId}\u0000`;
      for (const key of turns.keys()) if (key.startsWith(prefix)) turns.delete(key);
    },
    /** The caller's transaction rolled back: all that was remembered is forgotten, to be learnt again in one scan. */
    rolledBack(): void {
      turns.clear();
      learntUpTo = 0;
      learntVersion = -1;
    },
  };
}
