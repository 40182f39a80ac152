// The standalone egress service with sandboxes identified by pod labels (a Kubernetes API on loopback; the test
// client connects from 127.0.0.1, so that is the pod's address): the pod's session label names the chat, storage
// confirms the chat is the pod's user's, and the ASK request is asked through Redis of the replica whose turn of
// that chat is running (its approval hub, as the turn runner drives it). A pod labelled with someone else's chat,
// or with none, asks nobody and is refused.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { formatEgressLogLine } from '@toolbus/egress';
import {
  createKubernetesPodIdentitySource,
  type EgressService,
  type IdentitySource,
  loadOrCreateCertificateAuthority,
  startEgressService,
} from '@toolbus/egress/node';
import { ApprovalHub, storageEgressCatalogue, storageEgressSessions } from '@toolbus/server';
import type { Storage } from '@toolbus/storage';
import { Redis } from 'ioredis';
import {
  labelsFor,
  pod,
  startFakeKubernetes,
  until,
} from '../../egress/src/identity/__fixtures__/fake-kubernetes.ts';
import { requestThroughProxy } from '../../egress/src/node/__fixtures__/request-through-proxy.ts';
import {
  addTrackerApp,
  apiTestNetwork,
  startTestHttpsApi,
  type TestHttpsApi,
} from '../../server/src/__fixtures__/egress-world.ts';
import { openTestStorage } from '../../server/src/__fixtures__/test-server.ts';
import { connectEgressApprovals, type EgressApprovals } from './connect-egress-approvals.ts';
import { RedisApprovalAsks } from './redis-approval-asks.ts';
import { RedisApprovalRelay } from './redis-approval-relay.ts';
import { RedisKeys } from './redis-keys.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

const secret = 'tok-POD-LABEL-APPROVAL-9931';
const sandboxId = '55555555-5555-4555-8555-555555555555';
let root: string;
let redis: TestRedisServer;
let storage: Storage;
let upstream: TestHttpsApi;
let kubernetes: Awaited<ReturnType<typeof startFakeKubernetes>>;
let approvals: EgressApprovals;
let service: EgressService;
let identitySource: IdentitySource;
let replicaRedis: Redis;
let relay: RedisApprovalRelay;
let asks: RedisApprovalAsks;
let hub: ApprovalHub;
let proxyCa: string;
let alice: string;
let aliceChat: string;
let bobChat: string;
const log: string[] = [];

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolbus-egress-pod-approvals-'));
  redis = await startRedisServer();
  ({ storage } = await openTestStorage());
  upstream = await startTestHttpsApi(join(root, 'upstream-ca'));
  alice = (await storage.users.create({ email: 'alice@example.com' })).id;
  const bob = (await storage.users.create({ email: 'bob@example.com' })).id;
  aliceChat = (await storage.chats.create({ userId: alice, title: 'report' })).id;
  bobChat = (await storage.chats.create({ userId: bob, title: 'other' })).id;
  await addTrackerApp({ storage, userId: alice, port: upstream.port, token: secret, policy: 'ASK' });
  kubernetes = await startFakeKubernetes();
  kubernetes.state.pods = [pod('pod-1', '127.0.0.1', labelsFor(sandboxId, alice, aliceChat))];
  approvals = await connectEgressApprovals({ url: redis.url, approvalTimeoutMs: 8000 });
  identitySource = createKubernetesPodIdentitySource({
    apiUrl: kubernetes.url,
    namespace: 'sandboxes',
    token: 'k8s-token',
    backoff: { initialMs: 20, maxMs: 40 },
  });
  service = await startEgressService({
    identitySource,
    caDirectory: join(root, 'proxy-ca'),
    host: '127.0.0.1',
    upstreamTrustedCa: [upstream.ca.certificatePem],
    context: {
      ...apiTestNetwork,
      ...storageEgressCatalogue(storage),
      ...storageEgressSessions(storage),
      approvalBroker: approvals.broker,
      approvalTimeoutMs: 8000,
      logger: (event, fields) => log.push(formatEgressLogLine(event, fields)),
    },
    syncTimeoutMs: 5000,
  });
  proxyCa = (await loadOrCreateCertificateAuthority({ directory: join(root, 'proxy-ca') })).certificatePem;
  // The replica running the chat's turn: its own Redis connection and approval hub.
  replicaRedis = new Redis(redis.url);
  const keys = new RedisKeys();
  relay = new RedisApprovalRelay({ redis: replicaRedis, keys, recheckIntervalMs: 200 });
  asks = new RedisApprovalAsks({ redis: replicaRedis, keys, recheckIntervalMs: 200 });
  hub = new ApprovalHub({ relay, asks, timeoutMs: 8000 });
  await hub.listen();
});

after(async () => {
  await hub?.close();
  relay?.disconnect();
  asks?.disconnect();
  await replicaRedis?.quit();
  await service?.stop();
  await approvals?.close();
  kubernetes?.close();
  upstream?.close();
  await storage?.close();
  await redis?.stop();
  await rm(root, { recursive: true, force: true });
});

const postItem = () =>
  requestThroughProxy({
    proxy: { port: service.port },
    url: `https://api.test:${upstream.port}/items`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Q3 report' }),
    ca: proxyCa,
  });

describe('egress service: pod identity, session label, approval through Redis', () => {
  test("the card appears in the labelled chat's turn; the owner's approval sends the request", async () => {
    const turn = hub.forTurn({ chatId: aliceChat, userId: alice });
    const cards: string[] = [];
    turn.attach((packet) => {
      if (packet.type !== 'approval-request') return;
      cards.push(packet.approvalId);
      void hub.decide(alice, packet.approvalId, 'approve');
    });
    const before = upstream.received.length;
    const response = await postItem();
    assert.equal(response.status, 201, response.body);
    assert.equal(cards.length, 1);
    const sent = upstream.received.slice(before);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.authorization, `Bearer ${secret}`);
    turn.close();
    assert.ok(!log.join('\n').includes(secret));
  });

  test("a pod labelled with another user's chat, or with none, asks nobody", async () => {
    const bobTurn = hub.forTurn({ chatId: bobChat, userId: 'whoever' });
    const cards: unknown[] = [];
    bobTurn.attach((packet) => cards.push(packet));
    for (const labels of [labelsFor(sandboxId, alice, bobChat), labelsFor(sandboxId, alice)]) {
      kubernetes.send({ type: 'MODIFIED', object: pod('pod-1', '127.0.0.1', labels, '200') });
      const expected = labels['toolbus.dev/session-id'];
      await until(() => identitySource.identify('127.0.0.1')?.sessionId === expected, 'the relabelled pod');
      const before = upstream.received.length;
      const response = await postItem();
      assert.equal(response.status, 403, response.body);
      assert.equal(JSON.parse(response.body).error, 'no_active_session');
      assert.equal(upstream.received.length, before);
    }
    assert.deepEqual(cards, [], "no card in bob's chat");
    bobTurn.close();
  });
});
