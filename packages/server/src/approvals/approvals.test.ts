// Egress approvals in the server, end to end: run_python in the real bubblewrap sandbox POSTs to a loopback HTTPS
// API whose action is ASK; the server parks the request, an approval-request packet appears at the tool call, and
// only the chat's owner can decide through POST /v1/approvals/{id}. Approved: the API receives the injected
// credential. Rejected or expired: the sandbox gets the proxy's 403, and the model reads it in the tool result.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ScriptedModelServer } from '@toolbus/core/testing';
import { apiCaller, newUserKey } from '../__fixtures__/api-calls.ts';
import { streamApprovalTurn, type WirePacket } from '../__fixtures__/approval-turn.ts';
import {
  addCoderPersona,
  connectTrackerApp,
  postReportCode,
  pythonWithEgressFactories,
  startRunPythonModel,
  startTestHttpsApi,
  type TestHttpsApi,
} from '../__fixtures__/egress-world.ts';
import { startTestApi, type TestApi } from '../__fixtures__/test-api.ts';
import type { ApprovalChoice } from './approval-hub.ts';

const secret = 'sk-APPROVAL-TEST-NEVER-IN-THE-SANDBOX-5521';
let root: string;
let api: TestApi;
let model: ScriptedModelServer;
let upstream: TestHttpsApi;
let upstreamPort = 0;
let received: TestHttpsApi['received'];
const toolResults: string[] = [];

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolbus-approvals-'));
  upstream = await startTestHttpsApi(join(root, 'upstream-ca'));
  upstreamPort = upstream.port;
  received = upstream.received;
  model = await startRunPythonModel({ code: postReportCode(upstreamPort), toolResults });
  api = await startTestApi({
    server: async (storage) => ({
      auth: 'api-keys',
      defaultModel: `openai-compatible:${model.url}/v1#scripted`,
      defaultPersonaId: await addCoderPersona(storage),
      approvalTimeoutMs: 6000,
      // What `toolbus serve` runs code in for a user with apps: a sandbox of the turn's own behind its egress proxy.
      builtInToolFactories: pythonWithEgressFactories({
        storage,
        caDirectory: join(root, 'egress-ca'),
        api: upstream,
      }),
    }),
    adminEmail: 'admin@example.com',
  });
});
after(async () => {
  await api?.close();
  await model?.close();
  upstream?.close();
  await rm(root, { recursive: true, force: true });
});

const call = apiCaller(() => api.http.url);
const userKey = (email: string) => newUserKey({ baseUrl: api.http.url, adminKey: api.adminKey, email });
/** `key`'s decision on an approval, as the web app posts it. */
const decide = (key: string, approvalId: string, decision: ApprovalChoice) =>
  call('POST', `/v1/approvals/${approvalId}`, key, { decision });

/** A new user (their key) who has connected the tracker app, whose calls need approval. */
async function userWithApp(email: string): Promise<string> {
  const key = await userKey(email);
  await connectTrackerApp({ baseUrl: api.http.url, key, port: upstreamPort, secret });
  return key;
}

/** Runs one turn of a new chat, calling `onApproval` (not awaited by the stream) at the approval request. */
async function runTurn(
  key: string,
  onApproval: (approvalId: string) => Promise<void> | void,
): Promise<{ packets: WirePacket[] }> {
  const chat = (await (await call('POST', '/v1/chats', key, { title: 'Report' })).json()) as { id: string };
  const send = () => call('POST', `/v1/chats/${chat.id}/messages`, key, { content: 'File the Q3 report' });
  return { packets: await streamApprovalTurn({ send, onApproval }) };
}

describe('egress approvals in the server', () => {
  test('an ASK request parks, shows at its tool call, and only the owner approves it; the API gets the credential', async () => {
    const alice = await userWithApp('alice@example.com');
    const bob = await userKey('bob@example.com');
    const before = received.length;
    const { packets } = await runTurn(alice, async (approvalId) => {
      // Bob cannot decide Alice's approval: for him it does not exist.
      const stolen = await decide(bob, approvalId, 'approve');
      assert.equal(stolen.status, 404);
      const decided = await decide(alice, approvalId, 'approve');
      assert.equal(decided.status, 200, await decided.text());
    });
    const start = packets.find((packet) => packet.obj.type === 'tool-start');
    const request = packets.find((packet) => packet.obj.type === 'approval-request');
    assert.ok(start && request, 'a tool start and an approval request');
    assert.deepEqual(request.placement, start.placement, 'the card sits at the run_python call');
    assert.equal(request.obj.toolCallId, start.obj.toolCallId);
    assert.deepEqual(request.obj.subject, { kind: 'app', name: 'Tracker' });
    assert.deepEqual(request.obj.actions, ['app.create_item']);
    assert.equal(request.obj.method, 'POST');
    assert.equal(request.obj.url, `https://api.test:${upstreamPort}/items`);
    const preview = String(request.obj.payloadPreview);
    assert.ok(preview.includes('Q3 report') && preview.includes('[hidden]') && !preview.includes('hunter2'));
    assert.ok(Date.parse(String(request.obj.expiresAt)) > Date.now() - 60_000);
    const resolved = packets.find((packet) => packet.obj.type === 'approval-resolved');
    assert.equal(resolved?.obj.resolution, 'approved');
    assert.ok(packets.indexOf(resolved) > packets.indexOf(request));
    // The API received the user's credential, added on the way out.
    const delivered = received.slice(before);
    assert.equal(delivered.length, 1);
    assert.equal(delivered[0]?.authorization, `Bearer ${secret}`);
    assert.equal(delivered[0]?.url, '/items?trace=QUERY-SECRET');
    assert.match(toolResults.at(-1) ?? '', /STATUS 201/);
    // The approval packets hold no query string and no masked field; the stream never holds the credential.
    const approvalWire = JSON.stringify(packets.filter((packet) => packet.obj.type.startsWith('approval-')));
    for (const hidden of ['QUERY-SECRET', 'hunter2']) assert.ok(!approvalWire.includes(hidden), hidden);
    assert.ok(!JSON.stringify(packets).includes(secret));
  });

  test('a rejection reaches the model as the proxy 403, and the API receives nothing', async () => {
    const carol = await userWithApp('carol@example.com');
    const before = received.length;
    const { packets } = await runTurn(carol, async (approvalId) => {
      const decided = await decide(carol, approvalId, 'reject');
      assert.equal(decided.status, 200);
    });
    assert.equal(
      packets.find((packet) => packet.obj.type === 'approval-resolved')?.obj.resolution,
      'rejected',
    );
    assert.equal(received.length, before);
    assert.match(toolResults.at(-1) ?? '', /STATUS 403/);
    assert.match(toolResults.at(-1) ?? '', /user_rejected/);
  });

  test('nobody deciding expires the request; a decision after that is a 404', async () => {
    const dave = await userWithApp('dave@example.com');
    let approvalId = '';
    const { packets } = await runTurn(dave, (id) => {
      approvalId = id;
    });
    assert.equal(
      packets.find((packet) => packet.obj.type === 'approval-resolved')?.obj.resolution,
      'expired',
    );
    assert.match(toolResults.at(-1) ?? '', /STATUS 403/);
    const late = await decide(dave, approvalId, 'approve');
    assert.equal(late.status, 404);
    assert.equal(((await late.json()) as { error: { field?: string } }).error.field, 'path.approvalId');
    assert.equal(api.server.approvals.pending, 0);
  });

  test('allow for this chat: a later identical action in the same chat passes without asking', async () => {
    const erin = await userWithApp('erin@example.com');
    const chat = (await (await call('POST', '/v1/chats', erin, { title: 'Twice' })).json()) as { id: string };
    const send = () =>
      streamApprovalTurn({
        send: () => call('POST', `/v1/chats/${chat.id}/messages`, erin, { content: 'File the Q3 report' }),
        onApproval: async (approvalId) => {
          await decide(erin, approvalId, 'allow-session');
        },
      });
    const first = await send();
    assert.equal(
      first.find((packet) => packet.obj.type === 'approval-resolved')?.obj.resolution,
      'approved_for_session',
    );
    const second = await send();
    assert.equal(second.filter((packet) => packet.obj.type === 'approval-request').length, 0);
    assert.match(toolResults.at(-1) ?? '', /STATUS 201/);
  });
});
