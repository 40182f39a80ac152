// A toolbus server in its own process, for tests that kill it: storage at TOOLBUS_TEST_DB, the scripted model at
// TOOLBUS_TEST_MODEL, the lookup tool taking TOOLBUS_TEST_TOOL_DELAY_MS, packets stored every
// TOOLBUS_TEST_PACKET_FLUSH_MS (default: each event-loop pass). Prints "listening <url>" when ready.
import { createServer } from '../create-server.ts';
import { listen } from '../listen.ts';
import { lookupToolFactories, openTestStorage } from './test-server.ts';

const { storage } = await openTestStorage(process.env.TOOLBUS_TEST_DB);
const server = await createServer({
  storage,
  auth: 'local',
  defaultModel: process.env.TOOLBUS_TEST_MODEL ?? '',
  builtInToolFactories: () => lookupToolFactories({ delayMs: Number(process.env.TOOLBUS_TEST_TOOL_DELAY_MS ?? 0) }),
  packetFlushMs: Number(process.env.TOOLBUS_TEST_PACKET_FLUSH_MS ?? 0),
});
const http = await listen(server, { port: 0 });
process.stdout.write(`listening ${http.url}\n`);
// As `toolbus serve` does: either signal stops the running turns (each writes its end), then the process exits.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void http.close().then(() => storage.close());
  });
}
