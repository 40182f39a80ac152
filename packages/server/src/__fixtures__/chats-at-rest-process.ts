// A toolbus server in a process of its own (run with --expose-gc), for the test that chats at rest hold no memory:
// the default persona with the lookup tool, the model at MODEL_URL. Prints "listening <url>"; for each "counts"
// line on stdin, collects garbage and prints "counts <JSON>": live objects per constructor name.
import { createInterface } from 'node:readline';
import { createServer } from '../create-server.ts';
import { listen } from '../listen.ts';
import { heapObjectCounts } from './heap-object-counts.ts';
import { lookupToolFactories, openTestStorage } from './test-server.ts';

const { storage } = await openTestStorage();
const server = await createServer({
  storage,
  auth: 'local',
  defaultModel: `openai-compatible:${process.env.MODEL_URL}/v1#scripted`,
  builtInToolFactories: () => lookupToolFactories(),
  // The test runs several chats at once; the model titles each new chat after its first answer.
  limits: { concurrentTurnsPerUser: 100 },
  titleChats: true,
});
const http = await listen(server, { port: 0 });
process.stdout.write(`listening ${http.url}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === 'counts') process.stdout.write(`counts ${JSON.stringify(await heapObjectCounts())}\n`);
}
// stdin closed: the test is done.
await http.close();
await storage.close();
