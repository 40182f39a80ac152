// A chat at rest costs nothing in the server process: once its turns ended, no timer, buffer, emitter, cache entry
// or closure of it stays. Proven on a real server in a child process (--expose-gc): after a warm-up batch and after
// a batch of many more chats run to completion (native SSE route and the useChat route, titles written), every
// constructor's count of live objects is compared, from heap snapshots taken after full collections. Anything
// kept per chat grows with the number of chats; bounded caches and one-time set-up do not.
import assert from 'node:assert/strict';
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import { eventually, lookupThenAnswer } from '../__fixtures__/test-server.ts';
import { UI_CHAT_PATH } from '../ui/ui-routes.ts';

const child = new URL('../__fixtures__/chats-at-rest-process.ts', import.meta.url).pathname;

let model: ScriptedModelServer;
let server: ChildProcessByStdio<Writable, Readable, null>;
let url: string;
const lines: string[] = [];
let lineArrived: () => void = () => undefined;

async function nextLine(prefix: string): Promise<string> {
  for (;;) {
    const index = lines.findIndex((line) => line.startsWith(prefix));
    if (index >= 0) return (lines.splice(index, 1)[0] as string).slice(prefix.length);
    await new Promise<void>((resolve) => {
      lineArrived = resolve;
    });
  }
}

before(async () => {
  model = await startScriptedModelServer({ handler: lookupThenAnswer() });
  server = spawn(process.execPath, ['--conditions=development', '--expose-gc', child], {
    env: { PATH: process.env.PATH ?? '', MODEL_URL: model.url },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  createInterface({ input: server.stdout }).on('line', (line) => {
    lines.push(line);
    lineArrived();
  });
  url = await nextLine('listening ');
});

after(async () => {
  server?.stdin.end();
  if (server && server.exitCode === null) await new Promise((resolve) => server.once('exit', resolve));
  await model?.close();
});

/** One chat run to completion: created, one question, its whole answer read; on `ui`, through the useChat route. */
async function runChat(index: number, ui: boolean): Promise<string> {
  const created = await fetch(`${url}/v1/chats`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  const { id } = (await created.json()) as { id: string };
  const response = ui
    ? await fetch(`${url}${UI_CHAT_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          id,
          messages: [{ id: `u${index}`, role: 'user', parts: [{ type: 'text', text: `Refunds ${index}?` }] }],
        }),
      })
    : await fetch(`${url}/v1/chats/${id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: `Refunds ${index}?` }),
      });
  const text = await response.text();
  assert.match(text, /Refunds take fourteen/, `chat ${index}: ${text.slice(-300)}`);
  return id;
}

/** Runs `count` chats, five at a time, and waits until the model has titled every one of them. */
async function runChats(from: number, count: number): Promise<void> {
  const ids: string[] = [];
  for (let start = from; start < from + count; start += 5) {
    const batch = Array.from({ length: Math.min(5, from + count - start) }, (_, offset) => start + offset);
    ids.push(...(await Promise.all(batch.map((index) => runChat(index, index % 2 === 1)))));
  }
  // The title is the model's words (the scripted answer), written after the turn: wait for it, it is work too.
  for (const id of ids) {
    await eventually(async () => {
      const chat = (await (await fetch(`${url}/v1/chats/${id}`)).json()) as { title?: string };
      return chat.title?.startsWith('Refunds take') ? true : undefined;
    });
  }
}

async function counts(): Promise<Record<string, number>> {
  server.stdin.write('counts\n');
  return JSON.parse(await nextLine('counts ')) as Record<string, number>;
}

describe('a chat at rest costs nothing in the server process', { timeout: 300_000 }, () => {
  test('after many chats ran to completion, no kind of object grew with their number', async () => {
    const many = 30;
    // Warm-up, not compared: the first few dozen chats fill bounded caches and first-use state once (about 200
    // objects, then they stop growing).
    await runChats(0, 2 * many);
    const before = await counts();
    await runChats(2 * many, many);
    const afterMany = await counts();
    await runChats(3 * many, many);
    const afterMore = await counts();
    // Anything held per chat grew by one object per chat or more, after each of two batches; what does not grow
    // with chats moves by a few, and on a loaded machine once by half a batch (a reply still in flight), never
    // twice in a row.
    const growth = (from: Record<string, number>, to: Record<string, number>, name: string) =>
      (to[name] ?? 0) - (from[name] ?? 0);
    const grown = Object.keys(afterMore)
      .map((name) => ({
        name,
        grew: [growth(before, afterMany, name), growth(afterMany, afterMore, name)],
      }))
      .filter(({ grew }) => grew.every((count) => count >= many / 2))
      .sort((a, b) => (b.grew[1] ?? 0) - (a.grew[1] ?? 0));
    assert.deepEqual(grown, []);
    // The comparison sees per-chat objects at all: the server's own chats and turns exist while they run.
    assert.ok(Object.keys(afterMany).length > 100);
  });
});
