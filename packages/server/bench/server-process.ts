// The toolbus server under benchmark, in its own process: local auth, no rate or concurrency limits, the lookup
// tool, the model at BENCH_MODEL_URL. Prints "listening <url>", then its memory every 100 ms as JSON lines.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lookupToolFactories, openTestStorage } from '../src/__fixtures__/test-server.ts';
import { createServer } from '../src/create-server.ts';
import { listen } from '../src/listen.ts';
import { reportUsage } from './report-usage.ts';

const { storage } = await openTestStorage(join(await mkdtemp(join(tmpdir(), 'toolbus-bench-')), 'bench.db'));
const server = await createServer({
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
