import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createGuardedFetch } from '@toolbus/core/node';
import {
  type ScriptedModelServer,
  type ScriptedRequest,
  startScriptedModelServer,
} from '@toolbus/core/testing';
import { parseOpenApiDocument } from '@toolbus/openapi';
import type { Storage } from '@toolbus/storage';
import { openTestStorage, readSse } from '../__fixtures__/test-server.ts';
import { createServer, type ToolbusServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';

let storage: Storage;
let server: ToolbusServer;
let http: ListeningServer;
let key: string;
let userId: string;

before(async () => {
  ({ storage } = await openTestStorage());
  server = await createServer({ storage, auth: 'api-keys', defaultModel: 'openai:gpt-4.1' });
  http = await listen(server, { port: 0 });
  const bootstrap = await server.access.bootstrapAdmin('owner@example.com');
  assert.ok(bootstrap);
  key = bootstrap.key;
  userId = bootstrap.user.id;
});
after(async () => {
  await http.close();
  await storage.close();
});

test('/openapi.json validates, documents every route once, and says which need a key', async () => {
  const document = (await (await fetch(`${http.url}/openapi.json`)).json()) as {
    servers: { url: string }[];
    paths: Record<string, Record<string, { operationId: string; security?: unknown[] }>>;
  };
  const parsed = await parseOpenApiDocument(document);
  assert.ok(parsed);
  assert.equal(document.servers[0]?.url, http.url);
  const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
  assert.deepEqual(
    operations.map((operation) => operation.operationId).sort(),
    server.routes.definitions.map((route) => route.operationId).sort(),
  );
  assert.ok(document.paths['/v1/chats/{chatId}/messages']?.post);
  assert.equal(
    document.paths['/v1/chats']?.post?.security,
    undefined,
    'the document-wide bearer key applies',
  );
});

test("/openapi.json passes the OpenAPI 3.1 specification's own JSON Schema", async () => {
  const document = await (await fetch(`${http.url}/openapi.json`)).json();
  const validator = new Validator();
  const result = await validator.validate(document);
  assert.deepEqual(result.errors ?? [], []);
  assert.equal(result.valid, true);
  assert.equal(validator.version, '3.1');
  // The validator is a real one: the same document without its info object is refused.
  const { info: _info, ...withoutInfo } = document as Record<string, unknown>;
  assert.equal((await new Validator().validate(withoutInfo)).valid, false);
});

test('every route the server serves is in /openapi.json, with its request body and response shapes', async () => {
  const document = (await (await fetch(`${http.url}/openapi.json`)).json()) as {
    paths: Record<
      string,
      Record<
        string,
        {
          requestBody?: { content: Record<string, { schema?: unknown }> };
          responses: Record<string, { description: string; content?: Record<string, unknown> }>;
        }
      >
    >;
  };
  const documented = new Set(
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    ),
  );
  // What Hono really routes (the catch-all body-limit middleware aside), in the document's path syntax.
  const served = server.app.routes
    .filter((route) => route.path !== '*' && route.path !== '/*')
    .flatMap((route) => {
      const path = route.path.replace(/:(\w+)/g, '{$1}');
      const methods = route.method === 'ALL' ? ['GET', 'POST', 'DELETE'] : [route.method];
      return methods.map((method) => `${method} ${path}`);
    });
  assert.ok(served.includes('GET /health') && served.includes('POST /v1/mcp/{personaId}'), served.join('\n'));
  assert.deepEqual(
    served.filter((route) => !documented.has(route)),
    [],
    'served but not documented',
  );
  for (const definition of server.routes.definitions) {
    const operation = document.paths[definition.path]?.[definition.method];
    assert.ok(operation, `${definition.method} ${definition.path}`);
    if (definition.body || definition.rawBody) {
      const content = Object.values(operation.requestBody?.content ?? {});
      assert.ok(content[0]?.schema, `${definition.operationId}: its request body has a schema`);
    }
    for (const [status, response] of Object.entries(operation.responses)) {
      assert.ok(response.description, `${definition.operationId} ${status}: described`);
      // A 2xx answer with a body says what the body is (204, and the MCP endpoint's 202 Accepted, have none).
      if (status.startsWith('2') && status !== '204' && definition.operationId !== 'mcpMessage') {
        assert.ok(response.content, `${definition.operationId} ${status}: its body is described`);
      }
    }
  }
  // JSON bodies say they refuse fields they do not name (the server answers 400 for them).
  const createChat = document.paths['/v1/chats']?.post?.requestBody?.content['application/json']?.schema as {
    additionalProperties?: boolean;
  };
  assert.equal(createChat.additionalProperties, false);
});

test('toolbus as an OpenAPI tool of another persona: its model creates a chat on this server', async () => {
  const document = await (await fetch(`${http.url}/openapi.json`)).json();
  const other = await openTestStorage();
  const persona = await other.storage.personas.create({ name: 'operator' });
  await other.storage.personas.addToolRow(persona.id, {
    kind: 'openapi',
    name: 'toolbus',
    document,
    auth: { type: 'bearer', token: key },
  });
  const model: ScriptedModelServer = await startScriptedModelServer({
    handler: (request: ScriptedRequest) =>
      request.messages.at(-1)?.role === 'tool'
        ? [
            {
              type: 'text',
              text: `Created: ${request.messages.at(-1)?.toolResults[0]?.content.slice(0, 200)}`,
            },
          ]
        : [
            {
              type: 'tool-call',
              id: 'call_1',
              name: 'createChat',
              arguments: { body: { title: 'Made by the operator' } },
            },
          ],
  });
  // The other server reaches this one through its guarded fetch, with loopback allowed as an on-premise host.
  const guarded = createGuardedFetch({ level: 'strict', allow: ['127.0.0.1'] });
  const operator = await createServer({
    storage: other.storage,
    auth: 'local',
    defaultModel: `openai-compatible:${model.url}/v1#scripted`,
    defaultPersonaId: persona.id,
    fetch: guarded as typeof fetch,
  });
  const operatorHttp = await listen(operator, { port: 0 });
  try {
    const chat = (await (
      await fetch(`${operatorHttp.url}/v1/chats`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as { id: string };
    const events = await readSse(
      await fetch(`${operatorHttp.url}/v1/chats/${chat.id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'Open a chat on toolbus', tools: ['createChat'] }),
      }),
    );
    const packets = events.map(
      (event) => JSON.parse(event.data) as { obj: { type: string; toolName?: string } },
    );
    assert.ok(
      packets.some((packet) => packet.obj.type === 'tool-start' && packet.obj.toolName === 'createChat'),
    );
    assert.deepEqual(model.failures, []);
    const created = await storage.chats.listForUser(userId);
    assert.deepEqual(
      created.map((entry) => entry.title),
      ['Made by the operator'],
    );
    const answer = (await other.storage.chats.listMessages(chat.id)).at(-1)?.message.content ?? '';
    assert.match(answer, new RegExp(created[0]?.id ?? 'missing'));
  } finally {
    await operatorHttp.close();
    await other.storage.close();
    await model.close();
    await guarded.close?.();
  }
});
