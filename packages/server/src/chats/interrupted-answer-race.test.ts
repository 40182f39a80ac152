// Two closers of one dead runner's turn at the same moment (two processes on one SQLite file: a restarted one and
// another): the turn is closed once, its closing packets and answer stored once, whatever reader replays it.
// PostgreSQL, with the shared log, in packages/redis/src/closers-at-once.test.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Storage } from '@toolbus/storage';
import {
  assertClosedOnce,
  assertHistoryOnce,
  deadTurnAnswer,
  readingTogether,
  recordDeadTurn,
} from '../__fixtures__/closers-at-once.ts';
import { openTestStorage, readSse } from '../__fixtures__/test-server.ts';
import { createServer, type ToolbusServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';
import { silentLogger } from '../server-logger.ts';
import { toUiMessageChunks } from '../ui/ui-message-chunks.ts';
import { TurnRunner } from './turn-runner.ts';

let path: string;
const storages: Storage[] = [];
let server: ToolbusServer;
let http: ListeningServer;

before(async () => {
  const first = await openTestStorage();
  path = first.path;
  storages.push(first.storage);
  // A server over the same file, for the readers over HTTP (no model is asked anything).
  server = await createServer({
    storage: first.storage,
    auth: 'local',
    defaultModel: 'openai-compatible:http://127.0.0.1:9/v1#unused',
  });
  http = await listen(server, { port: 0 });
});
after(async () => {
  await http.close();
  await server.close();
  for (const storage of storages) await storage.close();
});

async function newChat(): Promise<string> {
  const response = await fetch(`${http.url}/v1/chats`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(response.status, 201);
  return ((await response.json()) as { id: string }).id;
}

// Two processes on the file (each closer on a connection of its own), or two closers in one process (the sweep and
// the not-queued path) on one connection.
for (const connections of ['two connections', 'one connection'] as const)
  test(`two closers of one dead turn at once (${connections}): one closes it, its closing packets and answer are stored once`, async () => {
    const chatId = await newChat();
    const turn = await recordDeadTurn(storages[0] as Storage, chatId);
    const together = readingTogether(2);
    const closers = await Promise.all(
      [0, 1].map(async () => {
        let storage = storages[0] as Storage;
        if (connections === 'two connections') {
          ({ storage } = await openTestStorage(path));
          storages.push(storage);
        }
        return new TurnRunner({ storage: together(storage), logger: silentLogger });
      }),
    );
    const reason = 'The server restarted.';
    const closed = await Promise.all(closers.map((closer) => closer.closeInterrupted(turn, reason)));
    assert.deepEqual(
      closed.toSorted(),
      [false, true],
      'one closer closed the turn, the other found it closed',
    );

    const storage = storages[0] as Storage;
    assert.equal((await storage.chats.getTurn({ chatId, turn: 0 }))?.status, 'interrupted');
    assertClosedOnce(await storage.chats.listPackets({ chatId, turn: 0 }));
    await assertHistoryOnce(storage, chatId, reason);

    // The SSE replay of the ended turn.
    const events = await readSse(await fetch(`${http.url}/v1/chats/${chatId}/turns/0/stream`));
    assertClosedOnce(events.map((event) => ({ sequence: Number(event.id), packet: JSON.parse(event.data) })));
    // useChat's resume serves running turns only: this one has ended. Its UI stream, had a reader opened it, is the
    // same replay: the answer once, then the turn's end.
    assert.equal((await fetch(`${http.url}/v1/ui/chat/${chatId}/stream`)).status, 204);
    const chunks = [];
    for await (const chunk of toUiMessageChunks(server.turns.follow(chatId, 0, 0), `${chatId}:0`))
      chunks.push(chunk);
    const text = chunks.flatMap((chunk) => (chunk.type === 'text-delta' ? [chunk.delta] : [])).join('');
    assert.equal(text, deadTurnAnswer);
    assert.equal(chunks.filter((chunk) => chunk.type === 'finish' || chunk.type === 'abort').length, 1);
  });
