// MCP elicitation across server replicas sharing one Redis and one storage file: the turn runs on the worker
// replica, whose MCP call waits for the user; the answer is sent to the API replica, which never saw the question.
// Owner only (404 for anyone else, on every replica), checked and completed with the schema's defaults on the
// worker, and first answer wins.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createGuardedFetch } from '@toolbus/core/node';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import { type LoopbackMcpServer, startLoopbackMcpServer } from '@toolbus/mcp/testing';
import type { Storage } from '@toolbus/storage';
import { callApi, newUserKey } from '../../server/src/__fixtures__/api-calls.ts';
import { seedApprovedMcpServer } from '../../server/src/__fixtures__/approved-mcp-server.ts';
import { bookTableTool } from '../../server/src/__fixtures__/book-table-tool.ts';
import { readSse } from '../../server/src/__fixtures__/test-server.ts';
import {
  type Replica,
  type ServerReplicas,
  serverReplicas,
  startApiAndWorker,
} from './__fixtures__/server-replicas.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

interface WirePacket {
  obj: { type: string; [key: string]: unknown };
}

let redis: TestRedisServer;
let model: ScriptedModelServer;
let mcp: LoopbackMcpServer;
let personaId: string;
let api: Replica;
let worker: Replica;
let adminKey: string;
let replicas: ServerReplicas;
const serverSaw: unknown[] = [];
const loopbackFetch = createGuardedFetch({ level: 'strict', allow: ['127.0.0.1'] }) as typeof fetch;

function startReplica(role: 'api' | 'worker'): Promise<Replica> {
  return replicas.start({
    scaleOut: { worker: role === 'worker' },
    server: () => ({
      auth: 'api-keys',
      defaultModel: `openai-compatible:${model.url}/v1#scripted`,
      defaultPersonaId: personaId,
      heartbeatMs: 200,
      fetch: loopbackFetch,
    }),
  });
}

/** The bistro MCP server with its tool approved, offered by a "host" persona. */
async function seedBistro(storage: Storage): Promise<void> {
  const persona = await storage.personas.create({ name: 'host', description: 'books tables' });
  await seedApprovedMcpServer(storage, {
    name: 'bistro',
    url: mcp.url,
    personaId: persona.id,
    fetch: loopbackFetch,
  });
  personaId = persona.id;
}

before(async () => {
  redis = await startRedisServer();
  mcp = await startLoopbackMcpServer([
    bookTableTool({
      requestedSchema: {
        type: 'object',
        properties: { name: { type: 'string' }, guests: { type: 'integer', default: 2 } },
        required: ['name'],
      },
      saw: serverSaw,
    }),
  ]);
  model = await startScriptedModelServer({
    handler: (request) =>
      request.lastMessage?.role === 'tool'
        ? [{ type: 'text', text: 'Booked.' }]
        : [{ type: 'tool-call', id: 'call_book', name: 'book_table', arguments: {} }],
  });
  replicas = await serverReplicas({ redisUrl: redis.url, seed: seedBistro });
  ({ api, worker, adminKey } = await startApiAndWorker(startReplica));
});
after(async () => {
  await replicas?.close();
  await model?.close();
  await mcp?.close();
  await redis?.stop();
});

function call(replica: Replica, method: string, path: string, key: string, body?: unknown) {
  return callApi({ baseUrl: replica.http.url, method, path, key, body });
}

const userKey = (email: string) => newUserKey({ baseUrl: api.http.url, adminKey, email });

test('the worker waits for the answer; the owner gives it on the API replica; nobody else can, on any replica', async () => {
  const alice = await userKey('alice@example.com');
  const bob = await userKey('bob@example.com');
  const chat = (await (await call(api, 'POST', '/v1/chats', alice, { title: 'Dinner' })).json()) as {
    id: string;
  };
  const answered: Promise<void>[] = [];
  const events = await readSse(
    await call(api, 'POST', `/v1/chats/${chat.id}/messages`, alice, { content: 'book a table' }),
    (event) => {
      const packet = JSON.parse(event.data) as WirePacket;
      if (packet.obj.type !== 'elicitation-request') return;
      const path = `/v1/chats/${chat.id}/elicitations/${String(packet.obj.elicitationId)}`;
      answered.push(
        (async () => {
          // The question waits on the worker (its MCP call runs there), not on the replica answering it.
          assert.equal(worker.server.elicitations.pending, 1);
          assert.equal(api.server.elicitations.pending, 0);
          for (const replica of [api, worker]) {
            const stolen = await call(replica, 'POST', path, bob, {
              action: 'accept',
              content: { name: 'Bob' },
            });
            assert.equal(stolen.status, 404, 'another user: not their chat');
          }
          const response = await call(api, 'POST', path, alice, {
            action: 'accept',
            content: { name: 'Ada' },
          });
          assert.equal(response.status, 200, await response.text());
          const twice = await call(api, 'POST', path, alice, { action: 'decline' });
          assert.equal(twice.status, 404, 'answered once');
        })(),
      );
    },
  );
  await Promise.all(answered);
  assert.equal(answered.length, 1, 'one question');
  const packets = events.map((event) => JSON.parse(event.data) as WirePacket);
  assert.equal(
    packets.find((packet) => packet.obj.type === 'elicitation-resolved')?.obj.resolution,
    'accept',
  );
  assert.deepEqual(serverSaw, [{ action: 'accept', content: { name: 'Ada', guests: 2 } }]);
  assert.equal(worker.server.elicitations.pending, 0);
});
