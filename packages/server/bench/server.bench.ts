// `npm run bench -- server`: concurrent streaming chats on one toolbus process against a model that streams
// 50 tokens/s per chat, each turn calling a tool first. For each level of concurrency, in the same run: the bare
// model stream read directly (the baseline), the same streams through a minimal node:http relay (relay-process.ts:
// the floor any Node server pays here), then the same number of toolbus turns over SSE. Every token carries
// the time the model wrote it, so its latency is the client's read time minus the model's write time; toolbus's
// p99 minus the bare stream's p99 is the latency toolbus adds. Also reported: how many streams were open at the
// same moment (a level counts only when all of them were), time to first packet against the bare stream's time to
// first chunk, the toolbus process's memory per open stream, and the CPU time each process spent per token (the
// model, the server and these clients share this machine's cores, so CPU the clients or the model burn is CPU the
// server does not get).
import { loadavg } from 'node:os';
import { omitUndefined } from '@toolbus/spec';
import { type Child, startChild as start, stopChild } from './bench-child.ts';
import { createChats } from './create-chats.ts';
import { now, postStream } from './post-stream.ts';
import type { Usage } from './report-usage.ts';

const levels = (process.env.BENCH_LEVELS ?? '50,200,500,1000,1500').split(',').map(Number);
// Long enough (3 s at 50 tokens/s) that every stream of a level, started over `rampMs`, is open at once.
const deltasPerTurn = Number(process.env.BENCH_TOKENS ?? 150);
const rampMs = 1000;

/**
 * POSTs `body` and reads the SSE answer, scanning the raw event text for the write stamps (no JSON parsing): calls
 * `onEvent` with each event's text and the time its bytes arrived.
 */
function postForEvents(
  url: string,
  body: string,
  onEvent: (event: string, at: number) => void,
): Promise<void> {
  let buffer = '';
  return postStream(url, body, (chunk, at) => {
    buffer += chunk;
    let boundary = buffer.indexOf('\n\n');
    while (boundary >= 0) {
      onEvent(buffer.slice(0, boundary), at);
      buffer = buffer.slice(boundary + 2);
      boundary = buffer.indexOf('\n\n');
    }
  });
}

const stampPattern = /⟨(\d+\.\d+)⟩/g;
function latencies(text: string, at: number, into: number[]): void {
  for (const match of text.matchAll(stampPattern)) into.push(at - Number(match[1]));
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** How many runs failed; the first reason goes to stderr. */
function failures(results: readonly PromiseSettledResult<unknown>[]): number {
  const failed = results.filter((result) => result.status === 'rejected');
  if (failed[0]) console.error(`${failed.length} failed, e.g.: ${String(failed[0].reason)}`);
  return failed.length;
}

async function staggered<T>(
  count: number,
  run: (index: number) => Promise<T>,
): Promise<PromiseSettledResult<T>[]> {
  return Promise.allSettled(
    Array.from({ length: count }, (_unused, index) =>
      new Promise((resolve) => setTimeout(resolve, (index * rampMs) / count)).then(() => run(index)),
    ),
  );
}

const model = await start('timestamping-model.ts', {
  TOKENS: String(deltasPerTurn),
  TOKENS_PER_SECOND: '50',
});
// BENCH_PROFILE_DIR=<dir>: the server process writes a CPU profile there when it exits.
const profileDir = process.env.BENCH_PROFILE_DIR;
const toolbus = await start(
  'server-process.ts',
  {
    BENCH_MODEL_URL: model.url,
    ...omitUndefined({ BENCH_FLUSH_MS: process.env.BENCH_FLUSH_MS || undefined }),
  },
  profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
);
// The floor any Node server pays for the same streams: a relay that reads the model's events with node:http,
// parses each one's JSON and writes it on as an SSE packet (no storage, no turn loop, no web streams).
const relay = await start('relay-process.ts', { BENCH_MODEL_URL: model.url });
/** The latest usage line of a child (see report-usage.ts); `onUsage` sees each one as it arrives. */
function usageOf(child: Child, onUsage: (usage: Usage) => void = () => {}): { readonly latest: Usage } {
  const tracked = { latest: { rss: 0, heapUsed: 0, external: 0, cpuMicros: 0 } as Usage };
  child.onLine((line) => {
    try {
      tracked.latest = JSON.parse(line) as Usage;
    } catch {
      return; // not a usage line
    }
    onUsage(tracked.latest);
  });
  return tracked;
}
const relayUsage = usageOf(relay);
const modelUsage = usageOf(model);
let peak: Usage = { rss: 0, heapUsed: 0, external: 0, cpuMicros: 0 };
const toolbusUsage = usageOf(toolbus, (usage) => {
  if (usage.heapUsed + usage.external > peak.heapUsed + peak.external) peak = { ...usage, rss: peak.rss };
  if (usage.rss > peak.rss) peak = { ...peak, rss: usage.rss };
});

/** Counts the streams that are between their first and their last token, and the most at one moment. */
function openStreams() {
  let open = 0;
  let most = 0;
  return {
    opened() {
      open += 1;
      most = Math.max(most, open);
    },
    closed() {
      open -= 1;
    },
    get most() {
      return most;
    },
  };
}

/** Waits one sampling interval of the children's memory and CPU lines, so their last figures are current. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 250));

/** CPU time of each process over a level, in µs per token delivered. */
function cpuMeter() {
  const start = {
    model: modelUsage.latest.cpuMicros,
    toolbus: toolbusUsage.latest.cpuMicros,
    relay: relayUsage.latest.cpuMicros,
    client: process.cpuUsage(),
  };
  return async (tokens: number) => {
    await settle();
    const client = process.cpuUsage(start.client);
    return {
      model: (modelUsage.latest.cpuMicros - start.model) / tokens,
      toolbus: (toolbusUsage.latest.cpuMicros - start.toolbus) / tokens,
      relay: (relayUsage.latest.cpuMicros - start.relay) / tokens,
      client: (client.user + client.system) / tokens,
    };
  };
}

/**
 * Reads one stream's events: its first event's delay goes to `firsts`, each token's latency to `tokens`, and the
 * stream counts as open from its first token until its last (`deltasPerTurn`) has arrived.
 */
function streamReader(into: {
  readonly started: number;
  readonly tokens: number[];
  readonly firsts: number[];
  readonly streams: ReturnType<typeof openStreams>;
}): (event: string, at: number) => void {
  const { started, tokens, firsts, streams } = into;
  let first = true;
  let received = 0;
  return (event, at) => {
    if (first) {
      firsts.push(at - started);
      first = false;
    }
    const before = tokens.length;
    latencies(event, at, tokens);
    if (received === 0 && tokens.length > before) streams.opened();
    received += tokens.length - before;
    if (received === deltasPerTurn && tokens.length > before) streams.closed();
  };
}

/** The bare model stream read directly, or (with `through`) through the minimal relay. */
async function bareLevel(count: number, through?: string) {
  const tokens: number[] = [];
  const firsts: number[] = [];
  const streams = openStreams();
  const cpu = cpuMeter();
  const results = await staggered(count, async () => {
    const started = now();
    const body = JSON.stringify({
      model: 'bench',
      stream: true,
      messages: [{ role: 'user', content: 'go' }],
    });
    await postForEvents(
      through ?? `${model.url}/v1/chat/completions`,
      body,
      streamReader({ started, tokens, firsts, streams }),
    );
  });
  return {
    tokens,
    firsts,
    concurrent: streams.most,
    cpu: await cpu(tokens.length),
    failed: failures(results),
  };
}

async function toolbusLevel(count: number) {
  const chats = await createChats(toolbus.url, count);
  const tokens: number[] = [];
  const firsts: number[] = [];
  let stops = 0;
  const streams = openStreams();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const idle = { ...toolbusUsage.latest };
  peak = { ...toolbusUsage.latest };
  const cpu = cpuMeter();
  const results = await staggered(count, async (index) => {
    const started = now();
    const url = `${toolbus.url}/v1/chats/${chats[index]}/messages`;
    const read = streamReader({ started, tokens, firsts, streams });
    // A stamp only ever appears in a message-delta's content; the stop packet is the turn's last.
    await postForEvents(url, '{"content":"go"}', (event, at) => {
      read(event, at);
      if (event.includes('"type":"stop"')) stops += 1;
    });
  });
  const cpuPerToken = await cpu(tokens.length);
  const perStream = (peak.heapUsed + peak.external - idle.heapUsed - idle.external) / count;
  return {
    tokens,
    firsts,
    stops,
    concurrent: streams.most,
    cpu: cpuPerToken,
    failed: failures(results),
    perStreamKiB: perStream / 1024,
    rssMiB: peak.rss / 2 ** 20,
  };
}

// Warm-up: the first turns compile code paths and open the persona's assembly; they are not measured.
await toolbusLevel(5);
await bareLevel(5);

const rows: string[] = [];
let best = 0;
let bestRelayed = 0;
const loadBefore = loadavg()[0] ?? 0;
for (const count of levels) {
  const load = loadavg()[0] ?? 0;
  const bare = await bareLevel(count);
  const relayed = await bareLevel(count, `${relay.url}/relay`);
  const served = await toolbusLevel(count);
  const bareP99 = percentile(bare.tokens, 99);
  const servedP99 = percentile(served.tokens, 99);
  const added = servedP99 - bareP99;
  const ttfpRatio = percentile(served.firsts, 50) / percentile(bare.firsts, 50);
  const complete =
    served.failed === 0 && served.stops === count && served.tokens.length >= count * deltasPerTurn;
  // Held: every turn ended with all its tokens, and all the streams were open at the same moment.
  if (complete && served.concurrent === count && added <= 50) best = count;
  const relayedP99 = percentile(relayed.tokens, 99);
  const relayedComplete = relayed.failed === 0 && relayed.tokens.length >= count * deltasPerTurn;
  if (relayedComplete && relayed.concurrent === count && relayedP99 - bareP99 <= 50) bestRelayed = count;
  const micros = (value: number) => value.toFixed(0);
  rows.push(
    `| ${count} | ${bare.concurrent} / ${served.concurrent} | ${percentile(bare.tokens, 50).toFixed(1)} / ${bareP99.toFixed(1)} | ${percentile(served.tokens, 50).toFixed(1)} / ${servedP99.toFixed(1)} | ${added.toFixed(1)} | ${relayed.concurrent} / ${(relayedP99 - bareP99).toFixed(1)} / ${micros(relayed.cpu.relay)} | ${percentile(bare.firsts, 50).toFixed(1)} | ${percentile(served.firsts, 50).toFixed(1)} | ${percentile(served.firsts, 99).toFixed(1)} | ${ttfpRatio.toFixed(2)}× | ${served.perStreamKiB.toFixed(1)} | ${served.rssMiB.toFixed(0)} | ${micros(served.cpu.toolbus)} | ${micros(served.cpu.model)} / ${micros(bare.cpu.model)} | ${micros(served.cpu.client)} / ${micros(bare.cpu.client)} | ${served.stops}/${count}${served.failed ? `, ${served.failed} failed` : ''} | ${load.toFixed(1)} |`,
  );
  console.error(rows.at(-1));
  // Every level runs while its turns complete, so the figures past the latency limit are measured too.
  if (!complete) break;
}

console.log(
  `## server: concurrent streaming chats (50 tokens/s each, ${deltasPerTurn} tokens after one tool call per turn)\n`,
);
console.log(
  '| chats | streams open at once (bare / toolbus) | bare token latency p50 / p99 (ms) | toolbus token latency p50 / p99 (ms) | added p99 (ms) | minimal relay: streams open at once / added p99 (ms) / CPU per token (µs) | bare first chunk p50 (ms) | toolbus first packet p50 (ms) | toolbus first packet p99 (ms) | first packet ratio (p50) | memory per open stream (KiB, heap+external) | toolbus RSS peak (MiB) | toolbus CPU per token (µs) | model CPU per token, toolbus / bare run (µs) | client CPU per token, toolbus / bare run (µs) | turns ended | 1-min load average at the level start |',
);
console.log(`|${' --- |'.repeat(17)}`);
for (const row of rows) console.log(row);
console.log(
  `\nLoad average (1 min) when the run started: ${loadBefore.toFixed(1)} on ${(await import('node:os')).cpus().length} cores (other work on the machine inflates every latency, bare and toolbus alike).`,
);
console.log(
  `\nMost concurrent chats with every turn complete, all streams open at once and p99 added token latency ≤ 50 ms: **${best}** (goal ≥ 1,000 on 2 cores); the same for the minimal relay (the floor for any Node server on this machine, with the model and the clients on the same cores): **${bestRelayed}**.\n`,
);
await stopChild(toolbus.child);
model.child.kill('SIGTERM');
relay.child.kill('SIGTERM');
