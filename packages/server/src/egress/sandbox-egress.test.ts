import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApprovalRequest } from '@toolbus/egress';
import { startInterpreterServer } from '@toolbus/interpreter';
import { echoLoopbackTool, type LoopbackMcpServer, startLoopbackMcpServer } from '@toolbus/mcp/testing';
import { openStorage, type Storage, setMcpServerAccess } from '@toolbus/storage';
import { hasConnectedApps, startSandboxEgress } from './sandbox-egress.ts';

let home: string;
let storage: Storage;
let userId: string;

before(async () => {
  home = await mkdtemp(join(tmpdir(), 'toolbus-cli-egress-'));
  storage = await openStorage({
    path: ':memory:',
    secretKey: randomBytes(32).toString('base64'),
    environment: {},
  });
  userId = (await storage.users.create({ email: 'me@example.com' })).id;
});
after(async () => {
  await storage.close();
  await rm(home, { recursive: true, force: true });
});

describe('the storage-backed sandbox egress proxy', () => {
  it('gives run_python network only through the proxy once an app is connected', async () => {
    assert.equal(await hasConnectedApps(storage, userId), false);
    await storage.connectedApps.create({
      userId,
      name: 'weather',
      urlPatterns: ['https://weather\\.example/.*'],
      headers: { 'X-Key': '{{org.key}}' },
      organizationValues: { key: 'CLI-EGRESS-SECRET' },
    });
    assert.equal(await hasConnectedApps(storage, userId), true);
    const lines: string[] = [];
    const egress = await startSandboxEgress({
      storage,
      userId,
      caDirectory: join(home, 'egress-ca'),
      approvals: { ask: async () => 'rejected' },
      onLog: (line) => lines.push(line),
    });
    const server = await startInterpreterServer({ port: 0, egress: egress.provider });
    try {
      const response = await fetch(`${server.url}/v1/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          code: [
            'import json, os, urllib.request, urllib.error',
            'try:',
            '    urllib.request.urlopen("http://localhost:9/", timeout=10)',
            'except urllib.error.HTTPError as error:',
            '    print(json.dumps([error.code, json.load(error)["error"], os.environ["HTTP_PROXY"]]))',
          ].join('\n'),
          timeout_ms: 30_000,
        }),
      });
      const result = (await response.json()) as { stdout: string; stderr: string };
      assert.deepEqual(
        JSON.parse(result.stdout.trim()),
        [403, 'destination_blocked', 'http://127.0.0.1:3128'],
        result.stderr,
      );
      assert.ok(lines.some((line) => line.startsWith('event=egress_denied_internal_destination')));
      assert.ok(!lines.join('\n').includes('CLI-EGRESS-SECRET'));
    } finally {
      await server.close();
      await egress.close();
    }
  });

  it('injects an MCP server credential for sandbox code calling its URL, and gates tools/call on approval', async () => {
    const mcp: LoopbackMcpServer = await startLoopbackMcpServer(
      [
        echoLoopbackTool({
          name: 'send_email',
          description: 'Sends an email.',
          inputSchema: { type: 'object', properties: { to: { type: 'string' } } },
        }),
      ],
      { requiredAuthorization: 'Bearer MCP-SANDBOX-KEY' },
    );
    const port = new URL(mcp.url).port;
    // Stored under the name the sandbox dials; `mcp.test` resolves to the loopback server only in this test.
    const stored = await storage.mcpServers.create({
      name: 'tracker',
      endpoint: { transport: 'streamable-http', url: `http://mcp.test:${port}/mcp` },
      authType: 'api-key',
      apiKey: 'MCP-SANDBOX-KEY',
    });
    await setMcpServerAccess(storage, stored.id, { availableToSandboxes: true });
    const asked: ApprovalRequest[] = [];
    let answer: 'approved' | 'rejected' = 'approved';
    const lines: string[] = [];
    const egress = await startSandboxEgress({
      storage,
      userId,
      caDirectory: join(home, 'egress-ca'),
      approvals: {
        ask: async (request) => {
          asked.push(request);
          return answer;
        },
      },
      onLog: (line) => lines.push(line),
      network: {
        resolveHost: async (name) => {
          if (name === 'mcp.test') return ['127.0.0.1'];
          throw new Error('ENOTFOUND');
        },
        addressPolicy: { level: 'strict', allow: ['mcp.test'] },
      },
    });
    const server = await startInterpreterServer({ port: 0, egress: egress.provider });
    const code = [
      'import json, urllib.request, urllib.error',
      `URL = "http://mcp.test:${port}/mcp"`,
      'def post(body, session=None):',
      '    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}',
      '    if session: headers["mcp-session-id"] = session',
      '    request = urllib.request.Request(URL, data=json.dumps(body).encode(), headers=headers, method="POST")',
      '    try:',
      '        with urllib.request.urlopen(request, timeout=30) as response:',
      '            return response.status, response.headers.get("mcp-session-id"), response.read().decode()',
      '    except urllib.error.HTTPError as error:',
      '        return error.code, None, error.read().decode()',
      'status, session, _ = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {',
      '    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "py", "version": "1"}}})',
      'print("INIT", status)',
      'post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)',
      'status, _, body = post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",',
      '    "params": {"name": "send_email", "arguments": {"to": "ceo@example.com"}}}, session)',
      'print("CALL", status, body)',
    ].join('\n');
    const run = async () => {
      const response = await fetch(`${server.url}/v1/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code, timeout_ms: 30_000 }),
      });
      return ((await response.json()) as { stdout: string }).stdout;
    };
    try {
      const approved = await run();
      assert.match(approved, /INIT 200/);
      assert.match(approved, /CALL 200 .*send_email: \{\\"to\\":\\"ceo@example.com\\"\}/s);
      assert.equal(asked.length, 1, 'only tools/call asked; initialize and notifications are plumbing');
      assert.deepEqual(asked[0]?.target, { kind: 'mcp', id: stored.id, name: 'tracker' });
      assert.deepEqual(
        asked[0]?.actions.map((action) => action.type),
        ['mcp.send_email'],
      );
      // Every request reached the server with the key, which the sandbox never had.
      assert.ok(mcp.requests.length >= 3);
      assert.ok(mcp.requests.every((request) => request.headers.authorization === 'Bearer MCP-SANDBOX-KEY'));

      answer = 'rejected';
      const before = mcp.requests.length;
      const rejected = await run();
      assert.match(rejected, /INIT 200/);
      assert.match(rejected, /CALL 403 .*user_rejected/s);
      // The refused tools/call never left the proxy.
      assert.equal(mcp.requests.length - before, 2);
      assert.ok(!lines.join('\n').includes('MCP-SANDBOX-KEY'));
    } finally {
      await server.close();
      await egress.close();
      await mcp.close();
      await storage.mcpServers.delete(stored.id);
    }
  });
});
