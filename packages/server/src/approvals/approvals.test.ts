// Egress approvals in the server, end to end: run_python in the real bubblewrap sandbox POSTs to a loopback HTTPS
// API whose action is ASK; the server parks the request, an approval-request packet appears at the tool call, and
// only the chat's owner can decide through POST /v1/approvals/{id}. Approved: the API receives the injected
// credential. Rejected or expired: the sandbox gets the proxy's 403, and the model reads it in the tool result.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type ScriptedModelServer,
  type ScriptedRequest,
  startScriptedModelServer,
} from '@toolbus/core/testing';
import { createLeafCertificateCache, loadOrCreateCertificateAuthority } from '@toolbus/egress/node';
import { startInterpreterServer } from '@toolbus/interpreter';
import { CodeInterpreterClient } from '@toolbus/sandbox';
import { omitUndefined } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import { createPythonTool } from '@toolbus/tools';
import { openTestStorage, readSse } from '../__fixtures__/test-server.ts';
import { createServer, type ToolbusServer } from '../create-server.ts';
import { startSandboxEgressIfConnected } from '../egress/sandbox-egress.ts';
import { type ListeningServer, listen } from '../listen.ts';

interface WirePacket {
  sequence: number;
  placement: { turn: number; tab: number; path?: unknown[] };
  obj: { type: string; [key: string]: unknown };
}

const secret = 'sk-APPROVAL-TEST-NEVER-IN-THE-SANDBOX-5521';
let root: string;
let storage: Storage;
let server: ToolbusServer;
let http: ListeningServer;
let model: ScriptedModelServer;
let upstream: HttpsServer;
let upstreamPort = 0;
let adminKey: string;
const received: { method: string; url: string; authorization: string | undefined; body: string }[] = [];
const toolResults: string[] = [];

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolbus-approvals-'));
  const upstreamCa = await loadOrCreateCertificateAuthority({ directory: join(root, 'upstream-ca') });
  const leaves = createLeafCertificateCache(upstreamCa);
  upstream = createHttpsServer(
    {
      SNICallback: (name, callback) => {
        leaves.secureContextFor(name).then(
          (context) => callback(null, context),
          (error: Error) => callback(error),
        );
      },
    },
    (request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        received.push({
          method: request.method ?? '',
          url: request.url ?? '',
          authorization: request.headers.authorization,
          body,
        });
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ created: true }));
      });
    },
  );
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamPort = (upstream.address() as AddressInfo).port;

  const code = [
    'import json, urllib.request, urllib.error',
    `request = urllib.request.Request("https://api.test:${upstreamPort}/items?trace=QUERY-SECRET", method="POST",`,
    '    data=json.dumps({"title": "Q3 report", "password": "hunter2"}).encode(),',
    '    headers={"content-type": "application/json"})',
    'try:',
    '    with urllib.request.urlopen(request, timeout=60) as response:',
    '        print("STATUS", response.status, response.read().decode())',
    'except urllib.error.HTTPError as error:',
    '    print("STATUS", error.code, error.read().decode())',
  ].join('\n');
  model = await startScriptedModelServer({
    handler: (request: ScriptedRequest) => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool') {
        toolResults.push(last.toolResults[0]?.content ?? '');
        return [{ type: 'text', text: 'Done.' }];
      }
      return [
        { type: 'tool-call', id: `call_py_${toolResults.length}`, name: 'run_python', arguments: { code } },
      ];
    },
  });
  ({ storage } = await openTestStorage());
  const persona = await storage.personas.create({ name: 'coder', description: 'runs code' });
  await storage.personas.addToolRow(persona.id, { kind: 'built-in', builtInId: 'PythonTool' });
  server = await createServer({
    storage,
    auth: 'api-keys',
    defaultModel: `openai-compatible:${model.url}/v1#scripted`,
    defaultPersonaId: persona.id,
    approvalTimeoutMs: 6000,
    // The same composition as `toolbus serve`: a sandbox per turn, with egress only when the user has apps.
    builtInToolFactories: (context) =>
      new Map([
        [
          'PythonTool',
          async () => {
            const egress =
              context.approvals === undefined
                ? undefined
                : await startSandboxEgressIfConnected({
                    storage,
                    userId: context.user.id,
                    caDirectory: join(root, 'egress-ca'),
                    approvals: context.approvals,
                    sessionId: context.approvals.sessionId,
                    network: {
                      resolveHost: async (name) => {
                        if (name === 'api.test') return ['127.0.0.1'];
                        throw new Error('ENOTFOUND');
                      },
                      addressPolicy: { level: 'strict', allow: ['api.test'] },
                      upstreamTrustedCa: [upstreamCa.certificatePem],
                    },
                  });
            const interpreter = await startInterpreterServer({
              port: 0,
              ...omitUndefined({ egress: egress?.provider }),
            });
            context.onClose(async () => {
              await interpreter.close();
              await egress?.close();
            });
            return createPythonTool({
              client: new CodeInterpreterClient({ baseUrl: interpreter.url }),
              files: {
                readContent: (fileId) => storage.files.readContent(fileId),
                saveGenerated: (file) => storage.files.put({ userId: context.user.id, ...file }),
              },
            });
          },
        ],
      ]),
  });
  http = await listen(server, { port: 0 });
  adminKey = (await server.access.bootstrapAdmin('admin@example.com'))?.key ?? '';
});
after(async () => {
  await http?.close();
  await server?.close();
  await storage?.close();
  await model?.close();
  upstream?.close();
  await rm(root, { recursive: true, force: true });
});

async function call(method: string, path: string, key: string, body?: unknown) {
  return fetch(`${http.url}${path}`, {
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

async function connectApp(key: string): Promise<void> {
  const response = await call('POST', '/v1/apps', key, {
    name: 'Tracker',
    urlPatterns: [`https://api\\.test:${upstreamPort}/.*`],
    headers: { Authorization: 'Bearer {{user.token}}' },
    userValues: { token: secret },
    actions: [{ name: 'create_item', method: 'POST', pathPattern: '/items', policy: 'ASK' }],
    defaultPolicy: 'ALWAYS',
  });
  assert.equal(response.status, 201, await response.text());
}

/** Runs one turn, calling `onApproval` (not awaited by the stream) when the approval request arrives. */
async function runTurn(
  key: string,
  onApproval: (packet: WirePacket) => Promise<void> | void,
): Promise<{ packets: WirePacket[]; decided: Promise<void>[] }> {
  const chat = (await (await call('POST', '/v1/chats', key, { title: 'Report' })).json()) as { id: string };
  const decided: Promise<void>[] = [];
  const events = await readSse(
    await call('POST', `/v1/chats/${chat.id}/messages`, key, { content: 'File the Q3 report' }),
    (event) => {
      const packet = JSON.parse(event.data) as WirePacket;
      if (packet.obj.type === 'approval-request') decided.push(Promise.resolve(onApproval(packet)));
    },
  );
  await Promise.all(decided);
  return { packets: events.map((event) => JSON.parse(event.data) as WirePacket), decided };
}

describe('egress approvals in the server', () => {
  test('an ASK request parks, shows at its tool call, and only the owner approves it; the API gets the credential', async () => {
    const alice = await newUserKey('alice@example.com');
    const bob = await newUserKey('bob@example.com');
    await connectApp(alice);
    const before = received.length;
    const { packets } = await runTurn(alice, async (packet) => {
      // Bob cannot decide Alice's approval: for him it does not exist.
      const stolen = await call('POST', `/v1/approvals/${String(packet.obj.approvalId)}`, bob, {
        decision: 'approve',
      });
      assert.equal(stolen.status, 404);
      const decided = await call('POST', `/v1/approvals/${String(packet.obj.approvalId)}`, alice, {
        decision: 'approve',
      });
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
    const carol = await newUserKey('carol@example.com');
    await connectApp(carol);
    const before = received.length;
    const { packets } = await runTurn(carol, async (packet) => {
      const decided = await call('POST', `/v1/approvals/${String(packet.obj.approvalId)}`, carol, {
        decision: 'reject',
      });
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
    const dave = await newUserKey('dave@example.com');
    await connectApp(dave);
    let approvalId = '';
    const { packets } = await runTurn(dave, (packet) => {
      approvalId = String(packet.obj.approvalId);
    });
    assert.equal(
      packets.find((packet) => packet.obj.type === 'approval-resolved')?.obj.resolution,
      'expired',
    );
    assert.match(toolResults.at(-1) ?? '', /STATUS 403/);
    const late = await call('POST', `/v1/approvals/${approvalId}`, dave, { decision: 'approve' });
    assert.equal(late.status, 404);
    assert.equal(server.approvals.pending, 0);
  });

  test('allow for this chat: a later identical action in the same chat passes without asking', async () => {
    const erin = await newUserKey('erin@example.com');
    await connectApp(erin);
    const chat = (await (await call('POST', '/v1/chats', erin, { title: 'Twice' })).json()) as { id: string };
    const send = () =>
      call('POST', `/v1/chats/${chat.id}/messages`, erin, { content: 'File the Q3 report' }).then(
        (response) =>
          readSse(response, (event) => {
            const packet = JSON.parse(event.data) as WirePacket;
            if (packet.obj.type === 'approval-request') {
              void call('POST', `/v1/approvals/${String(packet.obj.approvalId)}`, erin, {
                decision: 'allow-session',
              });
            }
          }),
      );
    const first = (await send()).map((event) => JSON.parse(event.data) as WirePacket);
    assert.equal(
      first.find((packet) => packet.obj.type === 'approval-resolved')?.obj.resolution,
      'approved_for_session',
    );
    const second = (await send()).map((event) => JSON.parse(event.data) as WirePacket);
    assert.equal(second.filter((packet) => packet.obj.type === 'approval-request').length, 0);
    assert.match(toolResults.at(-1) ?? '', /STATUS 201/);
  });
});
