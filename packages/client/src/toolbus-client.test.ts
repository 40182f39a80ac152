import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { defineTool } from '@toolbus/core';
import {
  chunkText,
  type ScriptedModelServer,
  type ScriptedStep,
  startScriptedModelServer,
} from '@toolbus/core/testing';
import {
  createServer,
  type ListeningServer,
  listen,
  type ApiKeyView as ServerApiKeyView,
  type ToolbusServer,
} from '@toolbus/server';
import { openStorage, type Storage } from '@toolbus/storage';
import { z } from 'zod';
import type { ApiKeyView, WirePacket } from './api-types.ts';
import { ToolbusClientError } from './client-error.ts';
import { ToolbusClient } from './toolbus-client.ts';

let model: ScriptedModelServer;
let storage: Storage;
let server: ToolbusServer;
let http: ListeningServer;
let adminKey: string;

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a fact up.',
  parameters: z.object({ query: z.string() }),
  run: async ({ query }) => `Fact about ${query}: refunds take 14 days.`,
});

before(async () => {
  model = await startScriptedModelServer({
    handler: (request): ScriptedStep[] => {
      if (request.messages.at(-1)?.role !== 'tool') {
        return [{ type: 'tool-call', id: 'call_1', name: 'lookup', arguments: { query: 'refunds' } }];
      }
      return chunkText('Refunds take fourteen days after the return arrives.', 4).flatMap((text) => [
        { type: 'delay', ms: 15 } as const,
        { type: 'text', text } as const,
      ]);
    },
  });
  const directory = await mkdtemp(join(tmpdir(), 'toolbus-client-'));
  storage = await openStorage({
    path: join(directory, 'db'),
    secretKey: Buffer.alloc(32, 5),
    environment: {},
  });
  const persona = await storage.personas.create({ name: 'default', description: 'test' });
  await storage.personas.addToolRow(persona.id, { kind: 'built-in', builtInId: 'SearchTool' });
  server = await createServer({
    storage,
    auth: 'api-keys',
    defaultModel: `openai-compatible:${model.url}/v1#scripted`,
    builtInToolFactories: () => new Map([['SearchTool', () => lookup]]),
  });
  http = await listen(server, { port: 0 });
  const bootstrap = await server.access.bootstrapAdmin('admin@example.com');
  assert.ok(bootstrap);
  adminKey = bootstrap.key;
});
after(async () => {
  await http.close();
  await storage.close();
  await model.close();
});

async function collect(stream: AsyncIterable<WirePacket>): Promise<WirePacket[]> {
  const packets: WirePacket[] = [];
  for await (const packet of stream) packets.push(packet);
  return packets;
}

/** A fetch whose stream responses break (an error mid-body) after `cutAfterBytes` bytes, once per call. */
function flakyFetch(cutAfterBytes: number, opened: string[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = String(input);
    if (!url.includes('/stream')) return response;
    opened.push(new URL(url).searchParams.get('after') ?? '');
    if (opened.length > 2) return response;
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { value, done } = await reader.read();
        if (done) return controller.close();
        const room = cutAfterBytes - sent;
        if (value.byteLength >= room) {
          controller.enqueue(value.subarray(0, Math.max(0, room)));
          await reader.cancel();
          controller.error(new TypeError('network connection lost'));
          return;
        }
        sent += value.byteLength;
        controller.enqueue(value);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

describe('ToolbusClient', () => {
  test('a chat and its turn: the stream carries the tool, the answer and the stop, in sequence', async () => {
    const client = new ToolbusClient({ baseUrl: http.url, apiKey: adminKey });
    const chat = await client.createChat({ title: 'Refunds' });
    const started = await client.sendMessage(chat.id, { content: 'How long do refunds take?' });
    assert.equal(started.turn, 0);
    const packets = await collect(client.streamTurn(chat.id, started.turn));
    const types = packets.map((packet) => packet.obj.type);
    assert.ok(types.includes('tool-start'), types.join());
    assert.equal(types.at(-1), 'stop');
    const answer = packets.flatMap((p) => (p.obj.type === 'message-delta' ? [p.obj.content] : [])).join('');
    assert.equal(answer, 'Refunds take fourteen days after the return arrives.');
    assert.deepEqual(
      packets.map((packet) => packet.sequence),
      packets.map((_, index) => index + 1),
    );
    // Resuming from a cursor replays only what came after it.
    const rest = await collect(client.streamTurn(chat.id, started.turn, { after: 3 }));
    assert.deepEqual(rest, packets.slice(3));
    const detail = await client.getChat(chat.id);
    assert.equal(detail.turns[0]?.status, 'completed');
    await client.renameChat(chat.id, 'Refund times');
    assert.equal((await client.listChats()).find((listed) => listed.id === chat.id)?.title, 'Refund times');
    await client.deleteChat(chat.id);
    await assert.rejects(client.getChat(chat.id), (error: unknown) => {
      assert.ok(ToolbusClientError.isInstance(error));
      assert.equal(error.status, 404);
      assert.equal(error.code, 'not_found');
      return true;
    });
  });

  test('a connection lost mid-stream is reopened from the last sequence: nothing lost, nothing repeated', async () => {
    const reference = new ToolbusClient({ baseUrl: http.url, apiKey: adminKey });
    const opened: string[] = [];
    const connection: { live: boolean; after: number }[] = [];
    const client = new ToolbusClient({ baseUrl: http.url, apiKey: adminKey, fetch: flakyFetch(700, opened) });
    const chat = await client.createChat();
    const started = await client.sendMessage(chat.id, { content: 'refunds?' });
    const packets = await collect(
      client.streamTurn(chat.id, started.turn, {
        backoffMs: () => 20,
        onConnection: (state) => connection.push({ live: state.live, after: state.after }),
      }),
    );
    const complete = await collect(reference.streamTurn(chat.id, started.turn));
    assert.deepEqual(packets, complete);
    assert.ok(opened.length >= 3, `reopened: ${opened.join()}`);
    assert.equal(opened[0], '0');
    assert.ok(Number(opened[1]) > 0, 'the second connection starts after the last packet received');
    assert.ok(
      connection.some((state) => !state.live),
      'the drop was reported',
    );
    assert.equal(connection.at(-1)?.live, true);
  });

  test('a stream refused with 429 waits what the server asked and resumes: a rate limit is not the end', async () => {
    const limited = await createServer({
      storage,
      auth: 'api-keys',
      defaultModel: `openai-compatible:${model.url}/v1#scripted`,
      builtInToolFactories: () => new Map([['SearchTool', () => lookup]]),
      limits: { requestsPerMinute: 60 },
    });
    const limitedHttp = await listen(limited, { port: 0 });
    try {
      const client = new ToolbusClient({ baseUrl: limitedHttp.url, apiKey: adminKey });
      const chat = await client.createChat();
      const started = await client.sendMessage(chat.id, { content: 'refunds?' });
      // Spend the caller's allowance on the real limiter, so the stream's first open is refused.
      let refusal: ToolbusClientError | undefined;
      while (!refusal) {
        await client.me().catch((error: unknown) => {
          if (ToolbusClientError.isInstance(error) && error.status === 429) refusal = error;
          else throw error;
        });
      }
      assert.ok((refusal.retryAfterSeconds ?? 0) >= 1, 'the server names its wait');
      const connection: { live: boolean; attempt: number }[] = [];
      const packets = await collect(
        client.streamTurn(chat.id, started.turn, {
          backoffMs: () => 10,
          onConnection: (state) => connection.push({ live: state.live, attempt: state.attempt }),
        }),
      );
      assert.equal(packets.at(-1)?.obj.type, 'stop');
      assert.equal(packets[0]?.sequence, 1);
      assert.deepEqual(
        connection[0],
        { live: false, attempt: 1 },
        'the refused open was a wait, not a failure',
      );
      assert.equal(connection.at(-1)?.live, true);
    } finally {
      await limitedHttp.close();
    }
  });

  test('a browser session: sign in with a key, then the cookie and the CSRF token; another user sees nothing', async () => {
    const jar = new Map<string, string>();
    const cookieFetch: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers);
      if (jar.size) headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
      const response = await fetch(input, { ...init, headers });
      const set = response.headers.get('set-cookie');
      if (set) {
        const [pair] = set.split(';');
        const [name, value] = (pair ?? '').split('=');
        if (name && value) jar.set(name, value);
      }
      return response;
    };
    const admin = new ToolbusClient({ baseUrl: http.url, apiKey: adminKey });
    const user = await admin.request<{ id: string }>('POST', '/v1/admin/users', {
      body: { email: 'bo@example.com' },
    });
    const { key } = await admin.request<{ key: string }>('POST', `/v1/admin/users/${user.id}/keys`, {
      body: { name: 'browser' },
    });
    // The client's reading of `GET /v1/keys` has exactly the fields the server sends, and the same types.
    const { keys } = await admin.request<{ keys: ApiKeyView[] }>('GET', '/v1/keys');
    const fields: Record<keyof ApiKeyView, true> = {
      id: true,
      organizationId: true,
      name: true,
      prefix: true,
      scopes: true,
      createdAt: true,
      lastUsedAt: true,
      revokedAt: true,
    };
    assert.deepEqual(Object.keys(keys[0] ?? {}).sort(), Object.keys(fields).sort());
    const asServer: ServerApiKeyView | undefined = keys[0];
    const asClient: ApiKeyView | undefined = asServer;
    assert.equal(asClient?.prefix.startsWith('tb_'), true);
    const browser = new ToolbusClient({ baseUrl: http.url, fetch: cookieFetch });
    const session = await browser.signIn(key);
    assert.equal(browser.csrfToken, session.csrfToken);
    assert.equal((await browser.me()).email, 'bo@example.com');
    const chat = await browser.createChat({ title: 'Mine' });
    assert.deepEqual(
      (await browser.listChats()).map((listed) => listed.id),
      [chat.id],
    );
    const noCsrf = new ToolbusClient({ baseUrl: http.url, fetch: cookieFetch });
    await assert.rejects(noCsrf.createChat(), (error: unknown) => {
      assert.ok(ToolbusClientError.isInstance(error));
      assert.equal(error.status, 403);
      assert.equal(error.field, 'header.x-csrf-token');
      return true;
    });
    assert.ok(
      !(await admin.listChats()).some((listed) => listed.id === chat.id),
      "the admin's list has none of bo's",
    );
    await assert.rejects(
      admin.getChat(chat.id),
      (error: unknown) => ToolbusClientError.isInstance(error) && error.status === 404,
    );
    await browser.signOut();
    await assert.rejects(
      browser.me(),
      (error: unknown) => ToolbusClientError.isInstance(error) && error.status === 401,
    );
  });
});
