// `npm run bench -- server-vs-ai-sdk [--quick]`: `toolbus serve` as installed (the real CLI command, its default
// persona with every built-in tool, run_python's sandbox and all) against the server a TypeScript user would
// otherwise build with the AI SDK (ai-sdk-server-process.ts: node:http, `streamText`, `toUIMessageStreamResponse`),
// on the same provider package and the same model stream: one tool call, then 200 tokens at 50 tokens/s, each
// stamped with the time the model wrote it. toolbus is measured on its `useChat` route (/v1/ui/chat) and on its
// native SSE route. Each round starts fresh processes of all three; each level runs the three one after another,
// in an order that alternates between levels and rounds. CPU is the kernel's count for the server process and the
// children it reaped (the sandbox's), per token delivered; memory is RSS (idle, and added per open stream).
// BENCH_LEVELS, BENCH_ROUNDS, BENCH_TOKENS and BENCH_REST_MS (the rest before RSS at rest) change the run;
// BENCH_BEFORE=<another checkout of toolbus, with its node_modules> adds that tree's `toolbus serve` from source on
// both routes (before-ui, before-sse) to the same rounds, so a change is measured side by side with what it
// changes; BENCH_SIDES=ai-sdk,toolbus-ui,… runs only the sides named.
// --quick (or BENCH_QUICK=1) runs 50,100,200 once: the levels around those the servers hold on 2 cores (the AI SDK
// server about 100), so the largest level held by each, and their ratio, shows in one short run.
// toolbus runs as installed: the `toolbus` bin on the built packages (run `npm run build` first);
// BENCH_TOOLBUS=source runs it from source instead (as `npm run serve` does). BENCH_PROFILE_DIR=<dir> writes a CPU
// profile of each toolbus process there.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild, startProcess, stopChild } from './bench-child.ts';
import { createChats } from './create-chats.ts';
import { now, postStream } from './post-stream.ts';
import { cpuMicrosWithChildren, rssBytes, rssPeak } from './process-usage.ts';

const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const levels = (process.env.BENCH_LEVELS ?? (quick ? '50,100,200' : '25,50,100,200,400'))
  .split(',')
  .map(Number);
const rounds = Number(process.env.BENCH_ROUNDS ?? (quick ? 1 : 3));
const tokensPerTurn = Number(process.env.BENCH_TOKENS ?? 200);
const answerLength = tokensPerTurn;
const rampMs = 1000;
const heldP99Ms = 50;
const restMs = Number(process.env.BENCH_REST_MS ?? 30_000);
const fromSource = process.env.BENCH_TOOLBUS === 'source';
const cliEntry = new URL(
  fromSource ? '../../cli/src/cli-entry.ts' : '../../cli/bin/toolbus.mjs',
  import.meta.url,
).pathname;
if (!fromSource && !existsSync(new URL('../../cli/dist/run-cli-process.js', import.meta.url))) {
  console.error(
    'server-vs-ai-sdk runs the built toolbus: run `npm run build` first (or set BENCH_TOOLBUS=source).',
  );
  process.exit(1);
}

type Side = 'ai-sdk' | 'toolbus-ui' | 'toolbus-sse' | 'before-ui' | 'before-sse';
const beforeTree = process.env.BENCH_BEFORE;
const sides: readonly Side[] = (
  [
    'ai-sdk',
    'toolbus-ui',
    'toolbus-sse',
    ...(beforeTree ? (['before-ui', 'before-sse'] as const) : []),
  ] as const
).filter((side) => !process.env.BENCH_SIDES || process.env.BENCH_SIDES.split(',').includes(side));
/** The toolbus sides, whose largest level held is set against the AI SDK server's. */
const toolbusSides = sides.filter((side) => side !== 'ai-sdk');
/** One empty list per side. */
const perSide = <T>(): Record<Side, T[]> =>
  Object.fromEntries(sides.map((side) => [side, [] as T[]])) as unknown as Record<Side, T[]>;

/** A server under measurement: its process and URL. */
interface Server {
  readonly side: Side;
  readonly child: ChildProcess;
  readonly url: string;
  stop(): Promise<void>;
}

const model = await startChild('timestamping-model.ts', {
  TOKENS: String(tokensPerTurn),
  TOKENS_PER_SECOND: '50',
  TOOL_NAME: 'internal_search',
  TOOL_ARGUMENTS: '{"queries":["bench"]}',
});

async function startAiSdk(): Promise<Server> {
  const started = await startChild('ai-sdk-server-process.ts', { BENCH_MODEL_URL: model.url });
  return { side: 'ai-sdk', child: started.child, url: started.url, stop: () => stopChild(started.child) };
}

/** `toolbus serve` from source (as `npm run serve` runs it) in a fresh home, default settings. */
async function startToolbus(side: Side): Promise<Server> {
  const home = await mkdtemp(join(tmpdir(), 'toolbus-bench-serve-'));
  const profileDir = process.env.BENCH_PROFILE_DIR;
  const before = side.startsWith('before-');
  const { child, url } = await startProcess({
    name: 'toolbus serve',
    args: [
      ...(fromSource || before ? ['--conditions=development'] : []),
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      before ? join(beforeTree as string, 'packages/cli/src/cli-entry.ts') : cliEntry,
      'serve',
      '--port',
      '0',
      '--turns-per-user',
      '100000',
      '--requests-per-minute',
      '100000000',
    ],
    env: { HOME: home, TOOLBUS_HOME: home, TOOLBUS_MODEL: `openai-compatible:${model.url}/v1#bench` },
    ready: /serving on (\S+)/,
    stderr: 'ignore',
  });
  return {
    side,
    child,
    url,
    stop: async () => {
      await stopChild(child);
      await rm(home, { recursive: true, force: true });
    },
  };
}

const userMessage = (id: string) => ({ id, role: 'user', parts: [{ type: 'text', text: 'go' }] });

/** What one chat of `side` posts, and where. */
function chatRequest(server: Server, chatId: string, index: number): { url: string; body: string } {
  if (server.side === 'ai-sdk') {
    return {
      url: `${server.url}/api/chat`,
      body: JSON.stringify({ id: `chat-${index}`, messages: [userMessage(`m-${index}`)] }),
    };
  }
  if (server.side.endsWith('-ui')) {
    return {
      url: `${server.url}/v1/ui/chat`,
      body: JSON.stringify({ id: chatId, messages: [userMessage(`m-${index}`)] }),
    };
  }
  return { url: `${server.url}/v1/chats/${chatId}/messages`, body: '{"content":"go"}' };
}

const stampPattern = /⟨(\d+\.\d+)⟩/g;

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** One level's figures for one server. */
interface LevelResult {
  readonly side: Side;
  readonly count: number;
  readonly latencies: number[];
  readonly firsts: number[];
  readonly mostOpen: number;
  readonly failed: number;
  readonly complete: number;
  readonly cpuMicrosPerToken: number;
  readonly idleRssMiB: number;
  readonly rssPerStreamKiB: number;
  /**
   * Cores busy during the level (CPU time over wall time): the server, the model and this bench's own clients.
   * They share the machine's cores: when their sum nears the core count, the level is bounded by the machine.
   */
  readonly cores: { readonly server: number; readonly model: number; readonly client: number };
}

/** Runs `count` chats on `server`, started over `rampMs`, and measures them. */
async function runLevel(server: Server, count: number): Promise<LevelResult> {
  const pid = server.child.pid as number;
  const chats = server.side === 'ai-sdk' ? [] : await createChats(server.url, count);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const idleRss = rssBytes(pid);
  const peak = rssPeak(pid);
  const cpuStart = cpuMicrosWithChildren(pid);
  const modelStart = cpuMicrosWithChildren(model.child.pid as number);
  const clientStart = process.cpuUsage();
  const wallStart = now();
  const latencies: number[] = [];
  const firsts: number[] = [];
  let open = 0;
  let mostOpen = 0;
  let complete = 0;
  const results = await Promise.allSettled(
    Array.from({ length: count }, async (_unused, index) => {
      await new Promise((resolve) => setTimeout(resolve, (index * rampMs) / count));
      const { url, body } = chatRequest(server, chats[index] ?? '', index);
      const started = now();
      let received = 0;
      let pending = '';
      await postStream(url, body, (text, at) => {
        // A stamp may be split across two reads: keep the tail after the last complete one.
        pending += text;
        let last = 0;
        for (const match of pending.matchAll(stampPattern)) {
          if (received === 0) {
            firsts.push(at - started);
            open += 1;
            mostOpen = Math.max(mostOpen, open);
          }
          received += 1;
          latencies.push(at - Number(match[1]));
          if (received === tokensPerTurn) open -= 1;
          last = (match.index ?? 0) + match[0].length;
        }
        pending = pending.slice(Math.max(last, pending.length - 32));
      });
      if (received === tokensPerTurn) complete += 1;
      else throw new Error(`${received} of ${tokensPerTurn} tokens`);
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  const cpu = cpuMicrosWithChildren(pid) - cpuStart;
  const wallMicros = (now() - wallStart) * 1000;
  const client = process.cpuUsage(clientStart);
  const cores = {
    server: cpu / wallMicros,
    model: (cpuMicrosWithChildren(model.child.pid as number) - modelStart) / wallMicros,
    client: (client.user + client.system) / wallMicros,
  };
  const peakRss = peak.stop();
  const failed = results.filter((result) => result.status === 'rejected');
  if (failed[0]?.status === 'rejected') {
    console.error(`${server.side} at ${count}: ${failed.length} failed, e.g. ${String(failed[0].reason)}`);
  }
  return {
    side: server.side,
    count,
    latencies,
    firsts,
    mostOpen,
    failed: failed.length,
    complete,
    cpuMicrosPerToken: cpu / Math.max(1, latencies.length),
    idleRssMiB: idleRss / 2 ** 20,
    rssPerStreamKiB: Math.max(0, peakRss - idleRss) / count / 1024,
    cores,
  };
}

/** Whether a level held: every stream complete and open at once, no errors, p99 latency within the limit. */
function held(result: LevelResult): boolean {
  return (
    result.failed === 0 &&
    result.complete === result.count &&
    result.mostOpen === result.count &&
    percentile(result.latencies, 99) <= heldP99Ms
  );
}

const loadAtStart = loadavg();
const all: LevelResult[][] = [];
// RSS of each server as started (before any request), right after the warm-up, after a rest, and after a rest
// once every level ran.
const started = perSide<number>();
const idle = perSide<number>();
// RSS after the servers rested: V8 keeps the young generation it grew while busy (tens of MiB) until its memory
// reducer runs after some seconds without allocation; at rest is what an idle server holds.
const atRest = perSide<number>();
const atRestAfterLoad = perSide<number>();
const rssMiB = (server: Server) => rssBytes(server.child.pid as number) / 2 ** 20;
for (let round = 0; round < rounds; round += 1) {
  const servers = await Promise.all(
    sides.map((side) => (side === 'ai-sdk' ? startAiSdk() : startToolbus(side))),
  );
  try {
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const server of servers) started[server.side].push(rssMiB(server));
    // Warm-up, not measured: the first turns compile code paths, open the persona's assembly and (toolbus) its
    // sandbox service.
    for (const server of servers) await runLevel(server, 3);
    for (const server of servers) idle[server.side].push(rssMiB(server));
    await new Promise((resolve) => setTimeout(resolve, restMs));
    for (const server of servers) atRest[server.side].push(rssMiB(server));
    for (const [levelIndex, count] of levels.entries()) {
      const order = (round + levelIndex) % 2 === 0 ? servers : [...servers].reverse();
      const results: LevelResult[] = [];
      for (const server of order) {
        const result = await runLevel(server, count);
        results.push(result);
        console.error(
          `round ${round + 1} · ${count} chats · ${result.side}: ${cpuMicros(result)} µs/token, TTFT p50 ${percentile(result.firsts, 50).toFixed(0)} ms, p99 ${percentile(result.latencies, 99).toFixed(1)} ms, ${result.complete}/${count} complete, ${result.mostOpen} open at once, cores busy ${coresOf(result)}, load ${loadavg()[0]?.toFixed(1)}`,
        );
      }
      all.push(results);
    }
    await new Promise((resolve) => setTimeout(resolve, restMs));
    for (const server of servers) atRestAfterLoad[server.side].push(rssMiB(server));
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}
model.child.kill('SIGTERM');

// Report: per level, the median over rounds of each figure, and the ratios against the AI SDK server.
const median = (values: readonly number[]) => percentile(values, 50);
const of = (count: number, side: Side) =>
  all.flat().filter((result) => result.count === count && result.side === side);
const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
console.log(
  `## server-vs-ai-sdk: toolbus serve against the AI SDK's own server (one tool call, then ${answerLength} tokens at 50 tokens/s per chat)\n`,
);
console.log(
  `toolbus ${fromSource ? 'from source' : 'built, as installed'}; ${rounds} round(s), fresh processes per round, levels run one server after another in alternating order. Medians over rounds. Latency is the model's write to the client's read; CPU per token is the server process with its reaped children.\n`,
);
console.log(
  '| chats | server | CPU per token (µs) | CPU ratio to AI SDK | TTFT p50 / p99 (ms) | TTFT p50 ratio | latency p50 / p99 (ms) | RSS per stream (KiB) | open at once | complete | held (rounds) | cores busy: server / model / client |',
);
console.log(`|${' --- |'.repeat(12)}`);
const largestHeld = perSide<number>();
for (let round = 0; round < rounds; round += 1) {
  for (const side of sides) {
    let best = 0;
    for (const count of levels) {
      const result = all[round * levels.length + levels.indexOf(count)]?.find((r) => r.side === side);
      if (result && held(result)) best = Math.max(best, count);
    }
    largestHeld[side].push(best);
  }
}
for (const count of levels) {
  const base = of(count, 'ai-sdk');
  const baseCpu = median(base.map((result) => result.cpuMicrosPerToken));
  const baseTtft = median(base.map((result) => percentile(result.firsts, 50)));
  for (const side of sides) {
    const results = of(count, side);
    const cpu = median(results.map((result) => result.cpuMicrosPerToken));
    const ttft50 = median(results.map((result) => percentile(result.firsts, 50)));
    const ttft99 = median(results.map((result) => percentile(result.firsts, 99)));
    const lat50 = median(results.map((result) => percentile(result.latencies, 50)));
    const lat99 = median(results.map((result) => percentile(result.latencies, 99)));
    console.log(
      `| ${count} | ${side} | ${fixed(cpu)} | ${side === 'ai-sdk' ? '1' : `${fixed(cpu / baseCpu, 2)}×`} | ${fixed(ttft50)} / ${fixed(ttft99)} | ${side === 'ai-sdk' ? '1' : `${fixed(ttft50 / baseTtft, 2)}×`} | ${fixed(lat50, 1)} / ${fixed(lat99, 1)} | ${fixed(median(results.map((result) => result.rssPerStreamKiB)))} | ${results.map((result) => result.mostOpen).join(', ')} | ${results.map((result) => `${result.complete}/${count}`).join(', ')} | ${results.filter(held).length}/${results.length} | ${results.map(coresOf).join('; ')} |`,
    );
  }
}
console.log('');
const mib = (values: readonly number[]) => values.map((value) => fixed(value)).join(', ');
for (const side of sides) {
  console.log(
    `- ${side}: RSS as started ${mib(started[side])} MiB, right after warm-up ${mib(idle[side])}, after ${restMs / 1000} s at rest ${mib(atRest[side])}, after the levels and ${restMs / 1000} s at rest ${mib(atRestAfterLoad[side])}; largest level held per round (all streams open at once, no errors, p99 ≤ ${heldP99Ms} ms): ${largestHeld[side].join(', ')}`,
  );
}
// The goal's second figure: each toolbus side's largest level held against the AI SDK server's, round by round,
// and over rounds (the largest level held in every round, each side's own).
const ratioText = (count: number, base: number) =>
  `${count} vs ${base}${base > 0 ? ` (${fixed(count / base, 1)}×)` : count > 0 ? ' (the AI SDK server held none)' : ''}`;
if (sides.includes('ai-sdk')) {
  const perRound = toolbusSides.map((side) => {
    const ratios = largestHeld[side].map((count, round) =>
      ratioText(count, largestHeld['ai-sdk'][round] ?? 0),
    );
    return `${side} ${ratios.join(', ')}`;
  });
  console.log(`- largest level held against the AI SDK server's, per round: ${perRound.join('; ')}`);
  const everyRound = (side: Side) => Math.min(...largestHeld[side]);
  const overRounds = toolbusSides.map(
    (side) => `${side} ${ratioText(everyRound(side), everyRound('ai-sdk'))}`,
  );
  console.log(`- held in every one of ${rounds} round(s): ${overRounds.join('; ')}`);
}
console.log(
  `\nMachine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}; 1-min load average at the start ${fixed(loadAtStart[0] ?? 0, 1)}, at the end ${fixed(loadavg()[0] ?? 0, 1)} (other work on these cores inflates both sides alike).`,
);

// The cores the server, the model and the clients kept busy during a level.
function coresOf(result: LevelResult): string {
  const { server, model, client } = result.cores;
  return `${server.toFixed(2)} / ${model.toFixed(2)} / ${client.toFixed(2)}`;
}

// The CPU figure of one side, for the progress lines.
function cpuMicros(result: { readonly cpuMicrosPerToken: number }): string {
  return result.cpuMicrosPerToken.toFixed(0);
}
