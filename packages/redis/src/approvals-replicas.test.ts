// Egress approvals across server replicas sharing one Redis and one storage file: run_python runs in the real
// bubblewrap sandbox on the worker replica, whose egress proxy parks the ASK request; the decision is sent to the
// API replica, which never saw the request. Owner only (404 for anyone else, on every replica), expiry, and a
// session grant that outlives the worker that wrote it.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import {
  createServer,
  type ListeningServer,
  listen,
  type ScaleOutBackend,
  type ToolbusServer,
} from '@toolbus/server';
import { openStorage, type Storage } from '@toolbus/storage';
import {
  connectTrackerApp,
  postReportCode,
  pythonWithEgressFactories,
  startTestHttpsApi,
  type TestHttpsApi,
} from '../../server/src/__fixtures__/egress-world.ts';
import { openTestStorage, readSse } from '../../server/src/__fixtures__/test-server.ts';
import { createRedisScaleOut } from './create-redis-scale-out.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

interface Replica {
  readonly storage: Storage;
  readonly backend: ScaleOutBackend;
  readonly server: ToolbusServer;
  readonly http: ListeningServer;
}

interface WirePacket {
  obj: { type: string; [key: string]: unknown };
}

const secret = 'sk-REPLICA-APPROVAL-NEVER-IN-THE-SANDBOX-8812';
let root: string;
let redis: TestRedisServer;
let model: ScriptedModelServer;
let upstream: TestHttpsApi;
let databasePath: string;
let personaId: string;
let api: Replica;
let worker: Replica;
let adminKey: string;
const running = new Set<Replica>();
const toolResults: string[] = [];

async function startReplica(role: 'api' | 'worker'): Promise<Replica> {
  const storage = await openStorage({ path: databasePath, secretKey: Buffer.alloc(32, 3), environment: {} });
  const backend = await createRedisScaleOut({ url: redis.url, worker: role === 'worker' });
  const server = await createServer({
    storage,
    auth: 'api-keys',
    defaultModel: `openai-compatible:${model.url}/v1#scripted`,
    defaultPersonaId: personaId,
    approvalTimeoutMs: 6000,
    heartbeatMs: 200,
    scaleOut: backend,
    builtInToolFactories: pythonWithEgressFactories({
      storage,
      caDirectory: join(root, 'egress-ca'),
      api: upstream,
    }),
  });
  const http = await listen(server, { port: 0 });
  const replica = { storage, backend, server, http };
  running.add(replica);
  return replica;
}

async function stopReplica(replica: Replica): Promise<void> {
  running.delete(replica);
  await replica.http.close();
  await replica.server.close();
  await replica.backend.close();
  await replica.storage.close();
}

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolbus-approvals-replicas-'));
  redis = await startRedisServer();
  upstream = await startTestHttpsApi(join(root, 'upstream-ca'));
  const code = postReportCode(upstream.port);
  model = await startScriptedModelServer({
    handler: (request) => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool') {
        toolResults.push(last.toolResults[0]?.content ?? '');
        return [{ type: 'text', text: 'Done.' }];
      }
      return [{ type: 'tool-call', id: 'call_py', name: 'run_python', arguments: { code } }];
    },
  });
  const seeded = await openTestStorage();
  databasePath = seeded.path;
  const persona = await seeded.storage.personas.create({ name: 'coder', description: 'runs code' });
  await seeded.storage.personas.addToolRow(persona.id, { kind: 'built-in', builtInId: 'PythonTool' });
  personaId = persona.id;
  await seeded.storage.close();
  api = await startReplica('api');
  worker = await startReplica('worker');
  adminKey = (await api.server.access.bootstrapAdmin('admin@example.com'))?.key ?? '';
});
after(async () => {
  for (const replica of [...running].reverse()) await stopReplica(replica);
  await model?.close();
  upstream?.close();
  await redis?.stop();
  await rm(root, { recursive: true, force: true });
});

async function call(replica: Replica, method: string, path: string, key: string, body?: unknown) {
  return fetch(`${replica.http.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function newUserKey(email: string): Promise<string> {
  const user = (await (await call(api, 'POST', '/v1/admin/users', adminKey, { email })).json()) as {
    id: string;
  };
  const created = await call(api, 'POST', `/v1/admin/users/${user.id}/keys`, adminKey, { name: 'test' });
  return ((await created.json()) as { key: string }).key;
}

async function newChat(key: string): Promise<string> {
  const response = await call(api, 'POST', '/v1/chats', key, { title: 'Report' });
  return ((await response.json()) as { id: string }).id;
}

/** Streams one turn through the API replica, calling `onApproval` when an approval request arrives. */
async function runTurn(
  key: string,
  chatId: string,
  onApproval: (approvalId: string) => Promise<void> | void,
): Promise<WirePacket[]> {
  const decided: Promise<void>[] = [];
  const events = await readSse(
    await call(api, 'POST', `/v1/chats/${chatId}/messages`, key, { content: 'File the Q3 report' }),
    (event) => {
      const packet = JSON.parse(event.data) as WirePacket;
      if (packet.obj.type === 'approval-request') {
        decided.push(Promise.resolve(onApproval(String(packet.obj.approvalId))));
      }
    },
  );
  await Promise.all(decided);
  return events.map((event) => JSON.parse(event.data) as WirePacket);
}

function resolutionOf(packets: WirePacket[]): unknown {
  return packets.find((packet) => packet.obj.type === 'approval-resolved')?.obj.resolution;
}

test('the worker parks the request; the owner approves it on the API replica; nobody else can, on any replica', async () => {
  const alice = await newUserKey('alice@example.com');
  const bob = await newUserKey('bob@example.com');
  await connectTrackerApp({ baseUrl: api.http.url, key: alice, port: upstream.port, secret });
  const before = upstream.received.length;
  const packets = await runTurn(alice, await newChat(alice), async (approvalId) => {
    // The request waits on the worker (its proxy runs the sandbox), not on the replica deciding it.
    assert.equal(worker.server.approvals.pending, 1);
    assert.equal(api.server.approvals.pending, 0);
    for (const replica of [api, worker]) {
      const stolen = await call(replica, 'POST', `/v1/approvals/${approvalId}`, bob, { decision: 'approve' });
      assert.equal(stolen.status, 404, 'another user: the approval does not exist');
    }
    const decided = await call(api, 'POST', `/v1/approvals/${approvalId}`, alice, { decision: 'approve' });
    const answer = await decided.text();
    assert.equal(decided.status, 200, answer);
    assert.deepEqual(JSON.parse(answer), { approvalId, resolution: 'approved' });
    const twice = await call(api, 'POST', `/v1/approvals/${approvalId}`, alice, { decision: 'reject' });
    assert.equal(twice.status, 404, 'decided once');
  });
  const kinds = packets.map((packet) => packet.obj.type);
  assert.ok(kinds.indexOf('approval-request') < kinds.indexOf('approval-resolved'));
  assert.equal(resolutionOf(packets), 'approved');
  assert.equal(kinds.at(-1), 'stop');
  const delivered = upstream.received.slice(before);
  assert.equal(delivered.length, 1, 'the API got the request once');
  assert.equal(delivered[0]?.authorization, `Bearer ${secret}`);
  assert.match(toolResults.at(-1) ?? '', /STATUS 201/);
  assert.equal(worker.server.approvals.pending, 0);
  assert.ok(!JSON.stringify(packets).includes(secret));
});

test('a rejection on the API replica reaches the sandbox on the worker as the proxy 403', async () => {
  const carol = await newUserKey('carol@example.com');
  await connectTrackerApp({ baseUrl: api.http.url, key: carol, port: upstream.port, secret });
  const before = upstream.received.length;
  const packets = await runTurn(carol, await newChat(carol), async (approvalId) => {
    const decided = await call(api, 'POST', `/v1/approvals/${approvalId}`, carol, { decision: 'reject' });
    assert.equal(decided.status, 200);
  });
  assert.equal(resolutionOf(packets), 'rejected');
  assert.equal(upstream.received.length, before);
  assert.match(toolResults.at(-1) ?? '', /STATUS 403/);
  assert.match(toolResults.at(-1) ?? '', /user_rejected/);
});

test('nobody deciding expires the request on the worker; a decision sent afterwards to the API replica is a 404', async () => {
  const dave = await newUserKey('dave@example.com');
  await connectTrackerApp({ baseUrl: api.http.url, key: dave, port: upstream.port, secret });
  let approvalId = '';
  const packets = await runTurn(dave, await newChat(dave), (id) => {
    approvalId = id;
  });
  assert.equal(resolutionOf(packets), 'expired');
  assert.match(toolResults.at(-1) ?? '', /STATUS 403/);
  const late = await call(api, 'POST', `/v1/approvals/${approvalId}`, dave, { decision: 'approve' });
  assert.equal(late.status, 404);
});

test('allow for this chat, decided on the API replica, still holds on a worker started after the first one stopped', async () => {
  const erin = await newUserKey('erin@example.com');
  await connectTrackerApp({ baseUrl: api.http.url, key: erin, port: upstream.port, secret });
  const chatId = await newChat(erin);
  const first = await runTurn(erin, chatId, async (approvalId) => {
    const decided = await call(api, 'POST', `/v1/approvals/${approvalId}`, erin, {
      decision: 'allow-session',
    });
    assert.equal(decided.status, 200);
  });
  assert.equal(resolutionOf(first), 'approved_for_session');
  // The worker that kept the grant goes away; the next turn runs on a new worker process state.
  await stopReplica(worker);
  worker = await startReplica('worker');
  const before = upstream.received.length;
  const second = await runTurn(erin, chatId, () => {
    assert.fail('the chat grant covers the action: nothing to ask');
  });
  assert.equal(second.filter((packet) => packet.obj.type === 'approval-request').length, 0);
  assert.equal(upstream.received.length, before + 1);
  assert.match(toolResults.at(-1) ?? '', /STATUS 201/);
  // Another chat of the same user is asked again.
  const other = await runTurn(erin, await newChat(erin), async (approvalId) => {
    await call(api, 'POST', `/v1/approvals/${approvalId}`, erin, { decision: 'reject' });
  });
  assert.equal(resolutionOf(other), 'rejected');
});
