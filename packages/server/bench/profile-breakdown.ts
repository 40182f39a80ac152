// `node --conditions=development packages/server/bench/profile-breakdown.ts <file.cpuprofile> [windowSeconds]
// [skipSeconds]`: where a `toolbus serve` CPU profile (BENCH_PROFILE_DIR of server-vs-ai-sdk) spent its busy time,
// by part of the turn's path: the provider chain (the model's HTTP answer through the AI SDK provider's web
// streams, JSON and zod), toolbus's loop, the server's turn plumbing, storage, the writes to the client, GC. Each
// sample goes to the first frame, from the leaf up, that names a part (so Node's stream internals under a route's
// write count as that write). Only the busiest window of `windowSeconds` (default 15) after `skipSeconds`
// (default 0) is read: the measured level, not start-up.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** The part a frame names, `idle`, or undefined (look at its caller). */
function partOf(frame: ProfileNode['callFrame']): string | undefined {
  const { url, functionName } = frame;
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(program)') return 'VM (unattributed)';
  if (/storage\/(src|dist)\//.test(url)) return 'storage (SQLite packet log, turns)';
  if (/server\/(src|dist)\/(ui\/|chats\/packet-stream-response)/.test(url)) {
    return 'packets to the client (SSE / UI encoding and writes)';
  }
  // The direct SSE reader (core) is the provider chain's replacement for an OpenAI-compatible model: its reader
  // loop, the chunk check (by hand, or the schema's synchronous check) and the parts made of each chunk.
  if (
    /core\/(src|dist)\/(llm\/(direct-sse-|openai-compatible-chunk-|synchronous-chunk-validation)|net\/sse-event-reader)/.test(
      url,
    )
  ) {
    return 'provider chain: direct SSE reader (core)';
  }
  if (/(provider-utils|openai-compatible|@ai-sdk\/provider|eventsource-parser|\/zod\/)/.test(url)) {
    return 'provider chain: AI SDK parsing, JSON, zod';
  }
  if (url.startsWith('node:internal/webstreams') || url.startsWith('node:internal/encoding')) {
    return 'provider chain: web streams';
  }
  if (
    /core\/(src|dist)\/net\//.test(url) ||
    url === 'node:_http_client' ||
    functionName.startsWith('parserOn')
  ) {
    return 'provider chain: HTTP client in (our fetch, the parser)';
  }
  if (/core\/(src|dist)\/llm\//.test(url)) return 'our loop: model step (core/llm)';
  if (/(core|spec)\/(src|dist)\//.test(url)) return 'our loop: turn, packet building (core, spec)';
  if (/server\/(src|dist)\/chats\//.test(url)) return 'server turn plumbing (writer, batcher, live turn)';
  if (/tools\/(src|dist)\//.test(url)) return 'tools (internal_search)';
  if (/server\/(src|dist)\//.test(url) || /hono/.test(url)) return 'server other (routes, Hono)';
  if (url === '' && /^write(v|Utf8String|Buffer)$/.test(functionName)) return 'socket writes (native)';
  return undefined;
}

const [file, windowArgument, skipArgument] = process.argv.slice(2);
if (!file) {
  console.error('usage: profile-breakdown.ts <file.cpuprofile> [windowSeconds] [skipSeconds]');
  process.exit(1);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const idle = new Set(
  profile.nodes.filter((node) => partOf(node.callFrame) === 'idle').map((node) => node.id),
);
const times: number[] = [];
let clock = profile.startTime;
for (const delta of profile.timeDeltas) {
  clock += delta;
  times.push(clock);
}

// The busiest window: a sliding sum of busy sample time.
const windowMicros = Number(windowArgument ?? 15) * 1e6;
const skipUntil = profile.startTime + Number(skipArgument ?? 0) * 1e6;
let from = 0;
let to = 0;
let best = -1;
let busy = 0;
let first = 0;
for (let index = 0; index < times.length; index += 1) {
  const at = times[index] as number;
  if (at < skipUntil) {
    first = index + 1;
    continue;
  }
  if (!idle.has(profile.samples[index] as number)) busy += profile.timeDeltas[index] as number;
  while (at - (times[first] as number) > windowMicros) {
    if (!idle.has(profile.samples[first] as number)) busy -= profile.timeDeltas[first] as number;
    first += 1;
  }
  if (busy > best) [best, from, to] = [busy, times[first] as number, at];
}

const parts = new Map<string, number>();
let total = 0;
for (let index = 0; index < times.length; index += 1) {
  const at = times[index] as number;
  if (at < from || at > to) continue;
  let id: number | undefined = profile.samples[index];
  let part: string | undefined;
  while (id !== undefined && part === undefined) {
    part = partOf((byId.get(id) as ProfileNode).callFrame);
    id = parentOf.get(id);
  }
  if (part === 'idle') continue;
  part ??= 'other (Node internals)';
  const delta = profile.timeDeltas[index] as number;
  total += delta;
  parts.set(part, (parts.get(part) ?? 0) + delta);
}
const seconds = (micros: number) => (micros / 1e6).toFixed(1);
console.log(
  `${file}: ${seconds(from - profile.startTime)}–${seconds(to - profile.startTime)} s, ${seconds(total)} s busy\n`,
);
console.log('| part | share of busy time |\n| --- | --- |');
for (const [part, micros] of [...parts].sort((a, b) => b[1] - a[1])) {
  console.log(`| ${part} | ${((100 * micros) / total).toFixed(1)} % |`);
}
