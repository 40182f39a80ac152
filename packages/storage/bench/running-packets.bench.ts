// `npm run bench -- running-packets`: what storing a streamed packet costs SQLite with a thousand turns at once.
// A running turn's packets go to the append-only log (a commit writes the log's last pages); a packet written to a
// turn that already ended goes straight to chat_packets, keyed by turn (a commit writes a page per turn): the way
// every packet was stored before the log. Same store, same packets, one pass per round for all turns, interleaved.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// BENCH_STORAGE_TREE: the stores of another checkout, for `npm run bench:pairs`.
const tree = process.env.BENCH_STORAGE_TREE ?? new URL('../../..', import.meta.url).pathname;
const { openStorage } = (await import(
  join(tree, 'packages/storage/src/open-storage.ts')
)) as typeof import('../src/open-storage.ts');

const turnsAtOnce = Number(process.env.BENCH_TURNS ?? 1000);
const passes = Number(process.env.BENCH_PASSES ?? 150);
const directory = mkdtempSync(join(tmpdir(), 'toolbus-running-packets-'));
const storage = await openStorage({
  path: join(directory, 'bench.db'),
  secretKey: Buffer.alloc(32, 1),
  environment: {},
});
const user = await storage.users.create({ email: 'bench@example.com' });
const packet = {
  placement: { turn: 1, tab: 0 },
  modelIndex: 0,
  obj: { type: 'message-delta', content: 'a token or two of the answer ' },
};

async function turns(count: number) {
  const started: { chatId: string; turn: number }[] = [];
  for (let index = 0; index < count; index += 1) {
    const chat = await storage.chats.create({ userId: user.id });
    const turn = await storage.chats.startTurn({ chatId: chat.id });
    started.push({ chatId: chat.id, turn: turn.index });
  }
  return started;
}
const cpuMicros = () => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

const running = await turns(turnsAtOnce);
const ended = await turns(turnsAtOnce);
for (const turn of ended) await storage.chats.finishTurn({ ...turn, status: 'completed' });
let logged = 0;
let keyed = 0;
for (let pass = 0; pass < passes; pass += 1) {
  let before = cpuMicros();
  await storage.chats.appendPacketBatches(running.map((turn) => ({ ...turn, packets: [packet] })));
  logged += cpuMicros() - before;
  before = cpuMicros();
  await storage.chats.appendPacketBatches(ended.map((turn) => ({ ...turn, packets: [packet] })));
  keyed += cpuMicros() - before;
}
const before = cpuMicros();
for (const turn of running) await storage.chats.finishTurn({ ...turn, status: 'completed' });
const ending = cpuMicros() - before;
await storage.close();
rmSync(directory, { recursive: true, force: true });

const perPacket = (micros: number) => micros / (passes * turnsAtOnce);
console.log(
  `## SQLite: packets of ${turnsAtOnce} turns streaming at once (${passes} passes, one packet per turn each)\n`,
);
console.log('| path | CPU per packet (µs) | ratio |');
console.log('| --- | --- | --- |');
console.log(`| append-only log (running turns) | ${perPacket(logged).toFixed(2)} | 1.00× |`);
console.log(
  `| keyed by turn (chat_packets, the former path) | ${perPacket(keyed).toFixed(2)} | ${(keyed / logged).toFixed(2)}× |`,
);
console.log(
  `\nEnding a turn (its ${passes} packets copied to chat_packets, the log's head swept): ${(ending / turnsAtOnce / 1000).toFixed(2)} ms per turn, i.e. ${(ending / (passes * turnsAtOnce)).toFixed(2)} µs per packet.\n`,
);
