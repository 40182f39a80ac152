// `npm run bench -- turn-cost`: what a turn costs the server besides its tokens. Turns whose answer is one token
// (after the tool call every bench turn makes), 20 at a time, against the bench's model; the server process's CPU
// time per turn over rounds of ROUND turns, after a warm-up. Side by side in the same run: the server as it resolves
// models (one model per name for the process, read over createNodeHttpFetch) and a server that makes a model per
// turn over the global fetch (how `toolbus serve` resolved them before this session). Each turn here is: the
// request, the turn's record, the persona's tools, two model calls, the tool call, the packets stored and streamed,
// the turn's end and history.
import { loadavg } from 'node:os';
import { startChild } from './bench-child.ts';
import { createChats } from './create-chats.ts';
import type { Usage } from './report-usage.ts';

const round = Number(process.env.BENCH_TURNS ?? 300);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const atOnce = 20;

const model = await startChild('timestamping-model.ts', { TOKENS: '1', TOKENS_PER_SECOND: '1000' });

async function serverCpuPerTurn(env: Record<string, string>): Promise<number[]> {
  const server = await startChild('server-process.ts', { BENCH_MODEL_URL: model.url, ...env });
  let cpuMicros = 0;
  server.onLine((line) => {
    try {
      cpuMicros = (JSON.parse(line) as Usage).cpuMicros;
    } catch {
      // not a usage line
    }
  });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 250));
  const turns = async (count: number): Promise<number> => {
    const chats = await createChats(server.url, count);
    await settle();
    const before = cpuMicros;
    let next = 0;
    await Promise.all(
      Array.from({ length: atOnce }, async () => {
        while (next < chats.length) {
          const chatId = chats[next] as string;
          next += 1;
          const response = await fetch(`${server.url}/v1/chats/${chatId}/messages`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
            body: '{"content":"go"}',
          });
          if (!(await response.text()).includes('"type":"stop"')) throw new Error('a turn did not end');
        }
      }),
    );
    await settle();
    return (cpuMicros - before) / count;
  };
  await turns(30);
  const figures: number[] = [];
  for (let index = 0; index < rounds; index += 1) figures.push(await turns(round));
  server.child.kill('SIGTERM');
  await new Promise((resolve) => server.child.once('exit', resolve));
  return figures;
}

const load = loadavg()[0] ?? 0;
const shared = await serverCpuPerTurn({});
const fresh = await serverCpuPerTurn({ BENCH_FRESH_MODEL: '1' });
model.child.kill('SIGTERM');
const ms = (figures: number[]) => figures.map((micros) => (micros / 1000).toFixed(2)).join(' / ');
console.log(
  `## server: CPU per turn besides its tokens (${rounds} rounds of ${round} turns, ${atOnce} at a time)\n`,
);
console.log('| models | server CPU per turn, each round (ms) | last round vs shared |');
console.log('| --- | --- | --- |');
console.log(`| one per name, createNodeHttpFetch (the server's default) | ${ms(shared)} | 1.00× |`);
console.log(
  `| one per turn, global fetch (toolbus serve before) | ${ms(fresh)} | ${((fresh.at(-1) ?? 0) / (shared.at(-1) ?? 1)).toFixed(2)}× |`,
);
console.log(`\nLoad average (1 min) at the start: ${load.toFixed(1)}.\n`);
