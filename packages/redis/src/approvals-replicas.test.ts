// Egress approvals across server replicas sharing one Redis and one storage file: run_python runs in the real
// bubblewrap sandbox on the worker replica, whose egress proxy parks the ASK request; the decision is sent to the
// API replica, which never saw the request. Owner only (404 for anyone else, on every replica), expiry, and a
// session grant that outlives the worker that wrote it.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ScriptedModelServer } from '@toolbus/core/testing';
import { callApi, newUserKey } from '../../server/src/__fixtures__/api-calls.ts';
import {
  resolutionOf,
  streamApprovalTurn,
  type WirePacket,
} from '../../server/src/__fixtures__/approval-turn.ts';
import {
  addCoderPersona,
  connectTrackerApp,
  postReportCode,
  pythonWithEgressFactories,
  startRunPythonModel,
  startTestHttpsApi,
  type TestHttpsApi,
} from '../../server/src/__fixtures__/egress-world.ts';
import {
  type Replica,
  type ServerReplicas,
  serverReplicas,
  startApiAndWorker,
} from './__fixtures__/server-replicas.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

const secret = 'sk-REPLICA-APPROVAL-NEVER-IN-THE-SANDBOX-8812';
let root: string;
let redis: TestRedisServer;
let model: ScriptedModelServer;
let upstream: TestHttpsApi;
let personaId: string;
let replicas: ServerReplicas;
let api: Replica;
let worker: Replica;
let adminKey: string;
const toolResults: string[] = [];

function startReplica(role: 'api' | 'worker'): Promise<Replica> {
  return replicas.start({
    scaleOut: { worker: role === 'worker' },
    server: (storage) => ({
      auth: 'api-keys',
      defaultModel: `openai-compatible:${model.url}/v1#scripted`,
      defaultPersonaId: personaId,
      approvalTimeoutMs: 6000,
      heartbeatMs: 200,
      builtInToolFactories: pythonWithEgressFactories({
        storage,
        caDirectory: join(root, 'egress-ca'),
        api: upstream,
      }),
    }),
  });
}

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolbus-approvals-replicas-'));
  redis = await startRedisServer();
  upstream = await startTestHttpsApi(join(root, 'upstream-ca'));
  model = await startRunPythonModel({ code: postReportCode(upstream.port), toolResults });
  replicas = await serverReplicas({
    redisUrl: redis.url,
    seed: async (storage) => {
      personaId = await addCoderPersona(storage);
    },
  });
  ({ api, worker, adminKey } = await startApiAndWorker(startReplica));
});
after(async () => {
  await replicas?.close();
  await model?.close();
  upstream?.close();
  await redis?.stop();
  await rm(root, { recursive: true, force: true });
});

function call(replica: Replica, method: string, path: string, key: string, body?: unknown) {
  return callApi({ baseUrl: replica.http.url, method, path, key, body });
}

const userKey = (email: string) => newUserKey({ baseUrl: api.http.url, adminKey, email });

async function newChat(key: string): Promise<string> {
  const response = await call(api, 'POST', '/v1/chats', key, { title: 'Report' });
  return ((await response.json()) as { id: string }).id;
}

/** Streams one turn through the API replica, calling `onApproval` when an approval request arrives. */
function runTurn(
  key: string,
  chatId: string,
  onApproval: (approvalId: string) => Promise<void> | void,
): Promise<WirePacket[]> {
  return streamApprovalTurn({
    send: () => call(api, 'POST', `/v1/chats/${chatId}/messages`, key, { content: 'File the Q3 report' }),
    onApproval,
  });
}

test('the worker parks the request; the owner approves it on the API replica; nobody else can, on any replica', async () => {
  const alice = await userKey('alice@example.com');
  const bob = await userKey('bob@example.com');
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
  const carol = await userKey('carol@example.com');
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
  const dave = await userKey('dave@example.com');
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
  const erin = await userKey('erin@example.com');
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
  await replicas.stop(worker);
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
