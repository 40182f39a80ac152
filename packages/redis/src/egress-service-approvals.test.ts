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
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import { formatEgressLogLine } from '@toolbus/egress';
import {
  deriveEgressTokenKey,
  type EgressProxy,
  loadOrCreateCertificateAuthority,
  startEgressProxy,
} from '@toolbus/egress/node';
import {
  createRemoteEgressRelay,
  type InterpreterServer,
  type RemoteEgressRelay,
  startInterpreterServer,
} from '@toolbus/interpreter';
import { CodeInterpreterClient } from '@toolbus/sandbox';
import {
  createServer,
  type ListeningServer,
  listen,
  remoteEgressTokens,
  type ScaleOutBackend,
  storageEgressCatalogue,
  type ToolbusServer,
} from '@toolbus/server';
import { omitUndefined } from '@toolbus/spec';
import { openStorage, type Storage } from '@toolbus/storage';
import { createPythonTool } from '@toolbus/tools';
import {
  connectTrackerApp,
  postReportCode,
  startTestHttpsApi,
  type TestHttpsApi,
} from '../../server/src/__fixtures__/egress-world.ts';
import { openTestStorage, readSse } from '../../server/src/__fixtures__/test-server.ts';
import { connectEgressApprovals, type EgressApprovals } from './connect-egress-approvals.ts';
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

const secret = 'sk-STANDALONE-PROXY-APPROVAL-5531';
const egressSecretKey = new Uint8Array(randomBytes(32));
const storageKey = Buffer.alloc(32, 3);
let root: string;
let redis: TestRedisServer;
let model: ScriptedModelServer;
let upstream: TestHttpsApi;
let databasePath: string;
let personaId: string;
let proxyStorage: Storage;
let approvals: EgressApprovals;
let proxy: EgressProxy;
let relay: RemoteEgressRelay;
let interpreter: InterpreterServer;
let api: Replica;
let worker: Replica;
let adminKey: string;
const replicas: Replica[] = [];
const toolResults: string[] = [];
const proxyLog: string[] = [];

async function startReplica(role: 'api' | 'worker'): Promise<Replica> {
  const storage = await openStorage({ path: databasePath, secretKey: storageKey, environment: {} });
  const backend = await createRedisScaleOut({ url: redis.url, worker: role === 'worker' });
  const server = await createServer({
    storage,
    auth: 'api-keys',
    defaultModel: `openai-compatible:${model.url}/v1#scripted`,
    defaultPersonaId: personaId,
    approvalTimeoutMs: 8000,
    heartbeatMs: 200,
    scaleOut: backend,
    // run_python as `"sandboxEgress": "proxy"` wires it: an external interpreter, one signed token per run.
    builtInToolFactories: (context) =>
      new Map([
        [
          'PythonTool',
          async () =>
            createPythonTool({
              client: new CodeInterpreterClient({ baseUrl: interpreter.url }),
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
  });
  const http = await listen(server, { port: 0 });
  const replica = { storage, backend, server, http };
  replicas.push(replica);
  return replica;
}

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolbus-egress-service-approvals-'));
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
  // The proxy's own process: its storage connection, its Redis connection, no server code running in it.
  proxyStorage = await openStorage({ path: databasePath, secretKey: storageKey, environment: {} });
  approvals = await connectEgressApprovals({ url: redis.url, approvalTimeoutMs: 8000 });
  const authority = await loadOrCreateCertificateAuthority({ directory: join(root, 'proxy-ca') });
  proxy = startEgressProxy({
    authority,
    upstreamTrustedCa: [upstream.ca.certificatePem],
    runTokens: { key: deriveEgressTokenKey(egressSecretKey) },
    context: {
      identify: () => undefined,
      resolveHost: async (name) => {
        if (name === 'api.test') return ['127.0.0.1'];
        throw new Error('ENOTFOUND');
      },
      addressPolicy: { level: 'strict', allow: ['api.test'] },
      ...storageEgressCatalogue(proxyStorage),
      approvalBroker: approvals.broker,
      approvalTimeoutMs: 8000,
      logger: (event, fields) => proxyLog.push(formatEgressLogLine(event, fields)),
    },
  });
  const proxyPort = (await proxy.listen({ port: 0, host: '127.0.0.1' })).port ?? 0;
  relay = createRemoteEgressRelay({
    proxy: { host: '127.0.0.1', port: proxyPort },
    caCertificateFile: authority.certificatePath,
  });
  interpreter = await startInterpreterServer({ port: 0, egress: relay });
  api = await startReplica('api');
  worker = await startReplica('worker');
  adminKey = (await api.server.access.bootstrapAdmin('admin@example.com'))?.key ?? '';
});

after(async () => {
  for (const replica of replicas.reverse()) {
    await replica.http.close();
    await replica.server.close();
    await replica.backend.close();
    await replica.storage.close();
  }
  await interpreter?.close();
  relay?.close();
  await proxy?.drain();
  await approvals?.close();
  await proxyStorage?.close();
  await model?.close();
  upstream?.close();
  await redis?.stop();
  await rm(root, { recursive: true, force: true });
});

async function call(method: string, path: string, key: string, body?: unknown) {
  return fetch(`${api.http.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function newUserKey(email: string): Promise<string> {
  const user = (await (await call('POST', '/v1/admin/users', adminKey, { email })).json()) as { id: string };
  const created = await call('POST', `/v1/admin/users/${user.id}/keys`, adminKey, { name: 'test' });
  return ((await created.json()) as { key: string }).key;
}

/** Streams one turn of a new chat through the API replica, calling `onApproval` at the approval card. */
async function runTurn(
  key: string,
  onApproval: (approvalId: string) => Promise<void>,
): Promise<WirePacket[]> {
  const chat = (await (await call('POST', '/v1/chats', key, { title: 'Report' })).json()) as { id: string };
  const decided: Promise<void>[] = [];
  const events = await readSse(
    await call('POST', `/v1/chats/${chat.id}/messages`, key, { content: 'File the Q3 report' }),
    (event) => {
      const packet = JSON.parse(event.data) as WirePacket;
      if (packet.obj.type === 'approval-request') decided.push(onApproval(String(packet.obj.approvalId)));
    },
  );
  await Promise.all(decided);
  return events.map((event) => JSON.parse(event.data) as WirePacket);
}

const resolutionOf = (packets: WirePacket[]) =>
  packets.find((packet) => packet.obj.type === 'approval-resolved')?.obj.resolution;

test('the standalone proxy asks the worker running the turn; the owner approves on the API replica', async () => {
  const alice = await newUserKey('alice@example.com');
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
  const bob = await newUserKey('bob@example.com');
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
