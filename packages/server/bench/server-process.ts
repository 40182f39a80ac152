// The toolbus server under benchmark, in its own process: local auth, no rate or concurrency limits, the lookup
// tool, the model at BENCH_MODEL_URL, packets stored every BENCH_FLUSH_MS (default each event-loop pass). With
// BENCH_FRESH_MODEL=1 each turn gets a model of its own over the global fetch (how `toolbus serve` resolved models
// before it left that to the server). Prints "listening <url>", then its memory every 100 ms as JSON lines.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveLanguageModel } from '@toolbus/core';
import { lookupToolFactories, openTestStorage } from '../src/__fixtures__/test-server.ts';
import { createServer } from '../src/create-server.ts';
import { listen } from '../src/listen.ts';
import { reportUsage } from './report-usage.ts';

const { storage } = await openTestStorage(join(await mkdtemp(join(tmpdir(), 'toolbus-bench-')), 'bench.db'));
const server = await createServer({
  ...(process.env.BENCH_FRESH_MODEL
    ? { resolveModel: (name: string) => resolveLanguageModel(name, { env: process.env }) }
    : {}),
  storage,
  auth: 'local',
  defaultModel: `openai-compatible:${process.env.BENCH_MODEL_URL}/v1#bench`,
  builtInToolFactories: () => lookupToolFactories(),
  limits: { requestsPerMinute: 10_000_000, concurrentTurnsPerUser: 100_000 },
  ...(process.env.BENCH_FLUSH_MS ? { packetFlushMs: Number(process.env.BENCH_FLUSH_MS) } : {}),
});
const http = await listen(server, { port: 0 });
process.stdout.write(`listening ${http.url}\n`);
reportUsage();
process.once('SIGTERM', () => {
  void http.close().then(() => process.exit(0));
});
