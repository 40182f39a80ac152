// `npm run bench -- wal-bound`: what bounding the SQLite write-ahead log costs at high turn rates. Two stores in
// one run, rounds interleaved: the log truncated once fully copied when past 64 MiB (the default), and never
// truncated (as before). Each round appends one packet to each of 1,000 running turns per pass while a reader
// replays packets, as followers do. Reported: µs per packet and the largest log seen.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage } from '../src/open-storage.ts';
import type { Storage } from '../src/storage.ts';

const turnsAtOnce = Number(process.env.BENCH_TURNS ?? 1000);
const passes = Number(process.env.BENCH_PASSES ?? 100);
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const directory = mkdtempSync(join(tmpdir(), 'toolbus-wal-bound-'));
const packet = {
  placement: { turn: 1, tab: 0 },
  modelIndex: 0,
  obj: { type: 'message-delta', content: `${'a token or two of the answer '.repeat(8)}` },
};

interface Subject {
  readonly name: string;
  readonly path: string;
  readonly storage: Storage;
  readonly turns: { chatId: string; turn: number }[];
  micros: number;
  packets: number;
  largestLog: number;
}

async function subject(name: string, walTruncateAboveBytes: number): Promise<Subject> {
  const path = join(directory, `${name}.db`);
  const storage = await openStorage({
    path,
    secretKey: Buffer.alloc(32, 1),
    environment: {},
    walTruncateAboveBytes,
  });
  const user = await storage.users.create({ email: `${name}@example.com` });
  const turns: { chatId: string; turn: number }[] = [];
  for (let index = 0; index < turnsAtOnce; index += 1) {
    const chat = await storage.chats.create({ userId: user.id });
    turns.push({ chatId: chat.id, turn: (await storage.chats.startTurn({ chatId: chat.id })).index });
  }
  return { name, path, storage, turns, micros: 0, packets: 0, largestLog: 0 };
}

async function round(target: Subject): Promise<void> {
  const started = process.hrtime.bigint();
  for (let pass = 0; pass < passes; pass += 1) {
    await target.storage.chats.appendPacketBatches(
      target.turns.map((turn) => ({ ...turn, packets: [packet] })),
    );
    // A follower's replay between passes.
    const turn = target.turns[pass % target.turns.length] as { chatId: string; turn: number };
    await target.storage.chats.listPackets({ ...turn, limit: 50 });
    const log = statSync(`${target.path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    target.largestLog = Math.max(target.largestLog, log);
  }
  target.micros += Number(process.hrtime.bigint() - started) / 1000;
  target.packets += passes * turnsAtOnce;
}

const bounded = await subject('bounded', 64 * 1024 * 1024);
const unbounded = await subject('unbounded', Number.POSITIVE_INFINITY);
for (let index = 0; index < rounds; index += 1) {
  for (const target of index % 2 ? [unbounded, bounded] : [bounded, unbounded]) await round(target);
}
// Idle: the checkpoint thread catches up; the bounded log is truncated, the other stays.
await new Promise((resolve) => setTimeout(resolve, 1_000));
const idleLog = (target: Subject) => statSync(`${target.path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
console.log(
  `## SQLite WAL bound: ${turnsAtOnce} running turns, ${rounds} × ${passes} passes each, interleaved\n`,
);
console.log('| log | µs per packet | packets/s | largest log (MiB) | log after 1 s idle (MiB) |');
console.log('| --- | --- | --- | --- | --- |');
for (const target of [bounded, unbounded]) {
  const perPacket = target.micros / target.packets;
  console.log(
    `| ${target.name === 'bounded' ? 'truncated past 64 MiB once copied (new)' : 'never truncated (before)'} | ${perPacket.toFixed(2)} | ${Math.round(1e6 / perPacket)} | ${mib(target.largestLog)} | ${mib(idleLog(target))} |`,
  );
}
console.log(
  `\nratio bounded/unbounded µs per packet: ${(bounded.micros / bounded.packets / (unbounded.micros / unbounded.packets)).toFixed(2)}×`,
);
await bounded.storage.close();
await unbounded.storage.close();
rmSync(directory, { recursive: true, force: true });
