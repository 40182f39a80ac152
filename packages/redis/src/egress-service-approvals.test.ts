// Approval cards for code behind the standalone egress proxy: two server replicas (API and worker) on one Redis and
// one storage file, run_python in an interpreter service (real bubblewrap) that relays each run to a proxy of its
// own process shape (`toolbus egress serve`'s: run tokens, storage catalogue, the Redis broker). The proxy parks the
// ASK request and asks the worker running the turn through Redis; the card appears in the chat's stream; the
// owner decides on the API replica; the request goes out (or is refused) accordingly.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ScriptedModelServer } from '@toolbus/core/testing';
import { formatEgressLogLine } from '@toolbus/egress';
import { CodeInterpreterClient } from '@toolbus/sandbox';
import { remoteEgressTokens, storageEgressCatalogue } from '@toolbus/server';
import { omitUndefined } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import { createPythonTool } from '@toolbus/tools';
import { apiCaller, newUserKey } from '../../server/src/__fixtures__/api-calls.ts';
import {
  resolutionOf,
  streamApprovalTurn,
  type WirePacket,
} from '../../server/src/__fixtures__/approval-turn.ts';
import {
  addCoderPersona,
  connectTrackerApp,
  postReportCode,
  startRunPythonModel,
  startTestHttpsApi,
  type TestHttpsApi,
} from '../../server/src/__fixtures__/egress-world.ts';
import {
  type StandaloneEgress,
  startStandaloneEgress,
} from '../../server/src/__fixtures__/standalone-egress.ts';
import {
  openReplicaStorage,
  type Replica,
  type ServerReplicas,
  serverReplicas,
  startApiAndWorker,
} from './__fixtures__/server-replicas.ts';
import { connectEgressApprovals, type EgressApprovals } from './connect-egress-approvals.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

const secret = 'sk-STANDALONE-PROXY-APPROVAL-5531';
const egressSecretKey = new Uint8Array(randomBytes(32));
let root: string;
let redis: TestRedisServer;
let model: ScriptedModelServer;
let upstream: TestHttpsApi;
let proxyStorage: Storage;
let approvals: EgressApprovals;
let egress: StandaloneEgress;
let replicas: ServerReplicas;
let api: Replica;
let worker: Replica;
let adminKey: string;
const toolResults: string[] = [];
const proxyLog: string[] = [];

function startReplica(role: 'api' | 'worker', personaId: string): Promise<Replica> {
  return replicas.start({
    scaleOut: { worker: role === 'worker' },
    server: (storage) => ({
      auth: 'api-keys',
      defaultModel: `openai-compatible:${model.url}/v1#scripted`,
      defaultPersonaId: personaId,
      approvalTimeoutMs: 8000,
      heartbeatMs: 200,
      // run_python as `"sandboxEgress": "proxy"` wires it: an external interpreter, one signed token per run.
      builtInToolFactories: (context) =>
        new Map([
          [
            'PythonTool',
            async () =>
              createPythonTool({
                client: new CodeInterpreterClient({ baseUrl: egress.interpreter.url }),
                egressToken: remoteEgressTokens({
                  storage,
                  secretKey: egressSecretKey,
                  userId: context.user.id,
                  ...omitUndefined({ sessionId: context.approvals?.sessionId }),
                }),
                files: {
                  readContent: (fileId) => storage.files.readContent(fileId),
                  saveGenerated: (file) => storage.files.put({ userId: context.user.id, ...file }),
                },
              }),
          ],
        ]),
    }),
  });
}

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolbus-egress-service-approvals-'));
  redis = await startRedisServer();
  upstream = await startTestHttpsApi(join(root, 'upstream-ca'));
  model = await startRunPythonModel({ code: postReportCode(upstream.port), toolResults });
  let personaId = '';
  replicas = await serverReplicas({
    redisUrl: redis.url,
    seed: async (storage) => {
      personaId = await addCoderPersona(storage);
    },
  });
  // The proxy's own process: its storage connection, its Redis connection, no server code running in it.
  proxyStorage = await openReplicaStorage(replicas.databasePath);
  approvals = await connectEgressApprovals({ url: redis.url, approvalTimeoutMs: 8000 });
  egress = await startStandaloneEgress({
    directory: root,
    api: upstream,
    secretKey: egressSecretKey,
    context: {
      ...storageEgressCatalogue(proxyStorage),
      approvalBroker: approvals.broker,
      approvalTimeoutMs: 8000,
      logger: (event, fields) => proxyLog.push(formatEgressLogLine(event, fields)),
    },
  });
  ({ api, worker, adminKey } = await startApiAndWorker((role) => startReplica(role, personaId)));
});

after(async () => {
  await replicas?.close();
  await egress?.close();
  await approvals?.close();
  await proxyStorage?.close();
  await model?.close();
  upstream?.close();
  await redis?.stop();
  await rm(root, { recursive: true, force: true });
});

const call = apiCaller(() => api.http.url);

/** Streams one turn of a new chat through the API replica, calling `onApproval` at the approval card. */
async function runTurn(
  key: string,
  onApproval: (approvalId: string) => Promise<void>,
): Promise<WirePacket[]> {
  const chat = (await (await call('POST', '/v1/chats', key, { title: 'Report' })).json()) as { id: string };
  return streamApprovalTurn({
    send: () => call('POST', `/v1/chats/${chat.id}/messages`, key, { content: 'File the Q3 report' }),
    onApproval,
  });
}

const userKey = (email: string) => newUserKey({ baseUrl: api.http.url, adminKey, email });

test('the standalone proxy asks the worker running the turn; the owner approves on the API replica', async () => {
  const alice = await userKey('alice@example.com');
  await connectTrackerApp({ baseUrl: api.http.url, key: alice, port: upstream.port, secret });
  const before = upstream.received.length;
  const packets = await runTurn(alice, async (approvalId) => {
    assert.equal(worker.server.approvals.pending, 1, 'the card waits on the worker running the turn');
    assert.equal(api.server.approvals.pending, 0);
    const decided = await call('POST', `/v1/approvals/${approvalId}`, alice, { decision: 'approve' });
    assert.equal(decided.status, 200, await decided.text());
  });
  const card = packets.find((packet) => packet.obj.type === 'approval-request')?.obj;
  assert.equal(card?.url, `https://api.test:${upstream.port}/items`, 'no query string on the card');
  assert.deepEqual(card?.actions, ['app.create_item']);
  assert.equal(resolutionOf(packets), 'approved');
  assert.equal(packets.at(-1)?.obj.type, 'stop');
  const delivered = upstream.received.slice(before);
  assert.equal(delivered.length, 1, 'the API got the request once');
  assert.equal(delivered[0]?.authorization, `Bearer ${secret}`);
  assert.match(toolResults.at(-1) ?? '', /STATUS 201/);
  assert.ok(
    proxyLog.some((line) => line.includes('event=approval_decided') && line.includes('decision=approved')),
  );
  assert.ok(!JSON.stringify(packets).includes(secret));
  assert.ok(!proxyLog.join('\n').includes(secret));
});

test("a rejection on the API replica reaches the sandbox as the standalone proxy's 403", async () => {
  const bob = await userKey('bob@example.com');
  await connectTrackerApp({ baseUrl: api.http.url, key: bob, port: upstream.port, secret });
  const before = upstream.received.length;
  const packets = await runTurn(bob, async (approvalId) => {
    const decided = await call('POST', `/v1/approvals/${approvalId}`, bob, { decision: 'reject' });
    assert.equal(decided.status, 200);
  });
  assert.equal(resolutionOf(packets), 'rejected');
  assert.equal(upstream.received.length, before, 'nothing went out');
  assert.match(toolResults.at(-1) ?? '', /STATUS 403/);
  assert.match(toolResults.at(-1) ?? '', /user_rejected/);
});
