// Per-turn storage cost on PostgreSQL next to the embedded SQLite store, measured side by side in one run: start a
// turn, append its packets (one by one, in batches of 10 as the server's turn runner writes them, and several chats'
// batches in one write as its packet batcher does), finish the turn with its history (a user message, a tool call, its result, the answer). PostgreSQL is a private cluster on
// loopback with fsync on and synchronous_commit off; SQLite is a file in WAL mode with synchronous = NORMAL: both
// keep every commit across a killed process and may lose the last ones on power loss. `npm run bench -- scale-out`
// (BENCH_STORAGE_TREE: the stores of another checkout, for `npm run bench:pairs`; BENCH_TURNS, BENCH_RUNS: sizes.)
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Storage } from '@toolbus/storage';
import { startTestPostgres } from '../src/testing/start-test-postgres.ts';
import { openPostgresStorage, openStorage, turnHistory } from './storage-under-test.ts';

const packetsPerTurn = 200;
const turnsPerRun = Number(process.env.BENCH_TURNS ?? 20);
const runs = Number(process.env.BENCH_RUNS ?? 5);
const secretKey = randomBytes(32).toString('base64');
const packet = (index: number) => ({
  ind: 0,
  obj: { type: 'message-delta', content: `word${index} ` },
  placement: { turn: 0, tab: 0 },
});

async function oneTurn(storage: Storage, chatId: string, batchSize: number): Promise<void> {
  const turn = await storage.chats.startTurn({ chatId, input: turnHistory.slice(0, 1) });
  for (let sent = 0; sent < packetsPerTurn; sent += batchSize) {
    const packets = Array.from({ length: Math.min(batchSize, packetsPerTurn - sent) }, (_, offset) =>
      packet(sent + offset),
    );
    await storage.chats.appendPackets({ chatId, turn: turn.index, packets });
  }
  await storage.chats.finishTurn({ chatId, turn: turn.index, status: 'completed', messages: turnHistory });
}

/** One turn of each chat at once, every round's batches of all of them in one write (as the server's batcher writes). */
async function turnsTogether(storage: Storage, chatIds: readonly string[], batchSize: number): Promise<void> {
  const turns = await Promise.all(
    chatIds.map(async (chatId) => ({
      chatId,
      turn: (await storage.chats.startTurn({ chatId, input: turnHistory.slice(0, 1) })).index,
    })),
  );
  for (let sent = 0; sent < packetsPerTurn; sent += batchSize) {
    const packets = Array.from({ length: Math.min(batchSize, packetsPerTurn - sent) }, (_, offset) =>
      packet(sent + offset),
    );
    await storage.chats.appendPacketBatches(turns.map((turn) => ({ ...turn, packets })));
  }
  for (const turn of turns) {
    await storage.chats.finishTurn({ ...turn, status: 'completed', messages: turnHistory });
  }
}

/** Milliseconds per turn (wall and this process's CPU): `turnsPerRun` turns one after another, or `parallel` chats at once. */
async function timeTurns(
  storage: Storage,
  options: { batchSize: number; parallel: number; together?: boolean },
): Promise<{ wall: number; cpu: number }> {
  const user = await storage.users.create({ email: `bench-${randomBytes(6).toString('hex')}@example.com` });
  const chats = await Promise.all(
    Array.from({ length: options.parallel }, () => storage.chats.create({ userId: user.id })),
  );
  const started = performance.now();
  const cpu = process.cpuUsage();
  if (options.together) {
    const chatIds = chats.map((chat) => chat.id);
    for (let turn = 0; turn < turnsPerRun; turn += 1)
      await turnsTogether(storage, chatIds, options.batchSize);
  } else {
    await Promise.all(
      chats.map(async (chat) => {
        for (let turn = 0; turn < turnsPerRun; turn += 1) await oneTurn(storage, chat.id, options.batchSize);
      }),
    );
  }
  const used = process.cpuUsage(cpu);
  const turns = turnsPerRun * options.parallel;
  return { wall: (performance.now() - started) / turns, cpu: (used.user + used.system) / 1000 / turns };
}

const median = (values: readonly number[]) =>
  [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)] as number;

const directory = mkdtempSync(join(tmpdir(), 'toolbus-bench-storage-'));
const cluster = await startTestPostgres({ durable: true });
const sqlite = await openStorage({ path: join(directory, 'bench.db'), secretKey, environment: {} });
const postgres = await openPostgresStorage({
  url: await cluster.createDatabase(),
  secretKey,
  environment: {},
});

const cases = [
  { name: 'packets one by one', batchSize: 1, parallel: 1 },
  { name: 'packets in batches of 10', batchSize: 10, parallel: 1 },
  { name: 'batches of 10, 8 chats at once', batchSize: 10, parallel: 8 },
  { name: "8 chats' batches of 10 in one write", batchSize: 10, parallel: 8, together: true },
] as const;
const rows: string[] = [];
try {
  for (const benchCase of cases) {
    await timeTurns(sqlite, benchCase);
    await timeTurns(postgres, benchCase);
    const sqliteRuns: { wall: number; cpu: number }[] = [];
    const postgresRuns: { wall: number; cpu: number }[] = [];
    for (let run = 0; run < runs; run += 1) {
      sqliteRuns.push(await timeTurns(sqlite, benchCase));
      postgresRuns.push(await timeTurns(postgres, benchCase));
    }
    const sqliteMs = median(sqliteRuns.map((run) => run.wall));
    const postgresMs = median(postgresRuns.map((run) => run.wall));
    const cpus = [sqliteRuns, postgresRuns].map((each) => median(each.map((run) => run.cpu)).toFixed(2));
    rows.push(
      `| ${benchCase.name} | ${sqliteMs.toFixed(2)} | ${postgresMs.toFixed(2)} | ${(postgresMs / sqliteMs).toFixed(2)}× | ${cpus.join(' | ')} |`,
    );
  }
} finally {
  await sqlite.close();
  await postgres.close();
  await cluster.stop();
  rmSync(directory, { recursive: true, force: true });
}

console.log('## Scale-out storage: one turn on PostgreSQL vs SQLite\n');
console.log(
  `A turn: start, ${packetsPerTurn} packets, finish with 4 history messages; median of ${runs} runs of ${turnsPerRun} turns per chat. PostgreSQL on loopback (fsync on, synchronous_commit off), SQLite file in WAL (synchronous NORMAL).\n`,
);
console.log(
  '| case | SQLite ms/turn | PostgreSQL ms/turn | PostgreSQL / SQLite | SQLite client CPU ms/turn | PostgreSQL client CPU ms/turn |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
for (const row of rows) console.log(row);
