// What the endpoint passes on besides a tool's text, on both revisions, against a real MCP server on loopback:
// the tool's own content (an image stays an image, byte for byte), its server's log messages at the level the
// caller asked for (never a credential toolbus sent that server), and progress, an MCP tool's and a toolbus tool's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { defineTool } from '@toolbus/core';
import { createGuardedFetch } from '@toolbus/core/node';
import { type LoopbackMcpServer, startLoopbackMcpServer } from '@toolbus/mcp/testing';
import type { Storage } from '@toolbus/storage';
import { z } from 'zod';
import { seedApprovedMcpServer } from '../__fixtures__/approved-mcp-server.ts';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { createServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';

const secret = 'Bearer s3cr3t-wiki-key-4711';
const pixel =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

let storage: Storage;
let http: ListeningServer;
let fixtures: LoopbackMcpServer;
let url: string;

/** A toolbus tool (not MCP) that reports three steps as `tool-progress` packets. */
const steps = defineTool({
  name: 'steps',
  description: 'Works in three steps.',
  parameters: z.object({}),
  run: async (_args, context) => {
    for (const step of [1, 2, 3]) {
      context.emitter.emit({
        type: 'tool-progress',
        toolCallId: context.call.id,
        message: `step ${step} of 3`,
      });
      await delay(10);
    }
    return 'three steps done';
  },
});

before(async () => {
  fixtures = await startLoopbackMcpServer(
    [
      {
        tool: {
          name: 'chatty',
          description: 'Logs, reports progress, answers with a picture',
          inputSchema: { type: 'object', properties: {} },
        },
        call: async (_args, context) => {
          await context.log('debug', 'debug detail');
          await context.log('info', 'working');
          // A careless server echoing the credential toolbus sent it.
          await context.log('warning', {
            note: 'auth was',
            header: secret,
            token: secret.slice('Bearer '.length),
          });
          for (const done of [1, 2, 3]) await context.progress(done, 3, `part ${done}`);
          return {
            content: [
              { type: 'text', text: 'a picture:' },
              { type: 'image', data: pixel, mimeType: 'image/png' },
            ],
          };
        },
      },
    ],
    { requiredAuthorization: secret },
  );
  ({ storage } = await openTestStorage());
  const persona = (await storage.personas.list()).find((item) => item.name === 'default');
  assert.ok(persona);
  await seedApprovedMcpServer(storage, {
    name: 'fixtures',
    url: fixtures.url,
    personaId: persona.id,
    fetch,
    headers: { Authorization: secret },
  });
  const toolbus = await createServer({
    storage,
    auth: 'local',
    defaultModel: 'openai:gpt-4.1',
    fetch: createGuardedFetch({ level: 'strict', allow: ['127.0.0.1'] }) as typeof fetch,
    builtInToolFactories: () => new Map([['SearchTool', () => steps]]),
  });
  http = await listen(toolbus, { port: 0 });
  url = `${http.url}/v1/mcp/default`;
});
after(async () => {
  await http.close();
  await storage.close();
  await fixtures.close();
});

interface Progress {
  readonly progress: number;
  readonly total?: number | undefined;
  readonly message?: string | undefined;
}

describe('2025-11-25 client', () => {
  async function connected() {
    const client = new LegacyClient({ name: 'legacy', version: '1.0.0' });
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(notification.params);
    });
    await client.connect(new LegacyTransport(new URL(url)));
    return { client, logs };
  }

  test("gets the tool's image as an image, its logs from info on with the credential masked, and its progress", async () => {
    const { client, logs } = await connected();
    try {
      const progress: Progress[] = [];
      const result = await client.callTool({ name: 'chatty', arguments: {} }, undefined, {
        onprogress: (update) => progress.push(update),
      });
      assert.equal(result.isError, false);
      assert.deepEqual(result.content, [
        { type: 'text', text: 'a picture:' },
        { type: 'image', data: pixel, mimeType: 'image/png' },
      ]);
      assert.deepEqual(logs, [
        { level: 'info', data: 'working' },
        { level: 'warning', data: { note: 'auth was', header: '[redacted]', token: '[redacted]' } },
      ]);
      assert.doesNotMatch(JSON.stringify(logs), /s3cr3t/);
      assert.deepEqual(
        progress.map((update) => [update.progress, update.total]),
        [
          [1, 3],
          [2, 3],
          [3, 3],
        ],
      );
      assert.match(progress[0]?.message ?? '', /part 1/);
    } finally {
      await client.close();
    }
  });

  test("a toolbus tool's tool-progress packets become progress notifications", async () => {
    const { client } = await connected();
    try {
      const progress: Progress[] = [];
      const result = await client.callTool({ name: 'steps', arguments: {} }, undefined, {
        onprogress: (update) => progress.push(update),
      });
      assert.deepEqual(result.content, [{ type: 'text', text: 'three steps done' }]);
      assert.deepEqual(
        progress.map((update) => [update.progress, update.message]),
        [
          [1, 'step 1 of 3'],
          [2, 'step 2 of 3'],
          [3, 'step 3 of 3'],
        ],
      );
    } finally {
      await client.close();
    }
  });
});

describe('2026-07-28 client', () => {
  async function connected() {
    const client = new Client(
      { name: 'modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const logs: unknown[] = [];
    client.setNotificationHandler('notifications/message', (notification) => {
      logs.push(notification.params);
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return { client, logs };
  }

  test('logs come at the level the request names, and none without one', async () => {
    const { client, logs } = await connected();
    try {
      const quiet = await client.callTool({ name: 'chatty', arguments: {} });
      assert.equal(quiet.isError, false);
      assert.deepEqual(logs, [], 'a request that names no log level gets no log message');
      const progress: Progress[] = [];
      const chatty = await client.callTool(
        { name: 'chatty', arguments: {}, _meta: { 'io.modelcontextprotocol/logLevel': 'debug' } },
        { onprogress: (update) => progress.push(update) },
      );
      assert.deepEqual(
        (chatty.content as { type: string }[]).map((block) => block.type),
        ['text', 'image'],
      );
      assert.deepEqual(
        logs.map((entry) => (entry as { level: string }).level),
        ['debug', 'info', 'warning'],
      );
      assert.doesNotMatch(JSON.stringify(logs), /s3cr3t/);
      assert.deepEqual(
        progress.map((update) => update.progress),
        [1, 2, 3],
      );
    } finally {
      await client.close();
    }
  });
});
