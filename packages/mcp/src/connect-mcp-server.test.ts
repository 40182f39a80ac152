// Against a real SDK MCP server on loopback whose tool table the test controls and which records received headers.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestRunContext } from '@toolbus/core/testing';
import { omitUndefined, ToolCallError, ToolExecutionError } from '@toolbus/spec';
import { createRecordingFetch } from './__fixtures__/recording-fetch.ts';
import { withHttpMcpConnection, withMcpConnection } from './__fixtures__/with-mcp-connection.ts';
import { connectMcpServer } from './connect-mcp-server.ts';
import { McpConnectionError } from './errors/mcp-connection-error.ts';
import type { McpLogger } from './mcp-logger.ts';
import type { McpServerConfig } from './mcp-server-config.ts';
import type { McpToolDescriptor } from './mcp-tool-descriptor.ts';
import {
  createLoopbackMcpHandler,
  type LoopbackMcpServer,
  type LoopbackTool,
  startLoopbackMcpServer,
} from './testing/loopback-mcp-server.ts';

const zeroArgumentTool: LoopbackTool = {
  // Legal MCP: an object schema without `properties` (providers such as Azure reject it as is).
  tool: { name: 'ping', description: 'Answers pong', inputSchema: { type: 'object' } },
  call: () => ({ content: [{ type: 'text', text: 'pong' }] }),
};
const failingTool: LoopbackTool = {
  tool: { name: 'lookup', description: 'Looks up an order', inputSchema: { type: 'object', properties: {} } },
  call: () => ({
    isError: true,
    content: [{ type: 'text', text: 'Order 17 does not exist; list orders first.' }],
  }),
};
const brokenTool: LoopbackTool = {
  tool: {
    name: 'broken',
    description: 'Throws inside the server',
    inputSchema: { type: 'object', properties: {} },
  },
  call: () => {
    throw new Error('database offline');
  },
};
const resourceTool: LoopbackTool = {
  tool: { name: 'report', description: 'Returns a report', inputSchema: { type: 'object', properties: {} } },
  call: () => ({
    content: [
      {
        type: 'resource',
        resource: { uri: 'file:///report.txt', mimeType: 'text/plain', text: 'Revenue up 3%' },
      },
      {
        type: 'resource',
        resource: { uri: 'file:///data.bin', mimeType: 'application/octet-stream', blob: 'AAEC' },
      },
    ],
  }),
};
const sillyNameTool: LoopbackTool = {
  tool: {
    name: 'files.read/v2',
    description: 'Dotted name',
    inputSchema: { type: 'object', properties: {} },
  },
  call: () => ({ content: [{ type: 'text', text: 'read' }] }),
};

let releaseSlowTool: () => void = () => undefined;
let slowToolStarted: () => void = () => undefined;
const slowTool: LoopbackTool = {
  tool: {
    name: 'slow',
    description: 'Takes until released',
    inputSchema: { type: 'object', properties: {} },
  },
  call: async () => {
    slowToolStarted();
    await new Promise<void>((resolve) => {
      releaseSlowTool = resolve;
    });
    return { content: [{ type: 'text', text: 'late' }] };
  },
};
const chattyTool: LoopbackTool = {
  tool: { name: 'chatty', description: 'Returns a lot', inputSchema: { type: 'object', properties: {} } },
  call: () => ({ content: [{ type: 'text', text: 'x'.repeat(5000) }] }),
};

function recordingLogger(): McpLogger & { readonly lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    warn: (message, fields) => {
      lines.push(`${message} ${JSON.stringify(fields)}`);
    },
  };
}

const allTools = [
  zeroArgumentTool,
  failingTool,
  brokenTool,
  resourceTool,
  sillyNameTool,
  slowTool,
  chattyTool,
];

describe('connectMcpServer against a loopback SDK server', () => {
  let server: LoopbackMcpServer;
  before(async () => {
    server = await startLoopbackMcpServer(allTools);
  });
  after(() => server.close());

  test('header priority: request extras < connection config; denylisted and CR/LF headers dropped and logged by name', async () => {
    const logger = recordingLogger();
    const recording = createRecordingFetch();
    const before = server.requests.length;
    await withMcpConnection(
      {
        id: 'loopback',
        name: 'loopback',
        transport: { type: 'streamable-http', url: server.url },
        auth: { type: 'headers', headers: { 'X-Shared': 'from-config', Authorization: 'Bearer config-key' } },
      },
      {
        fetch: recording.fetch,
        logger,
        requestHeaders: {
          'X-Tenant': 'acme',
          'x-shared': 'from-request',
          authorization: 'Bearer request-token',
          Host: 'evil.example',
          'Mcp-Session-Id': 'forged-session',
          'Content-Length': '0',
          'Transfer-Encoding': 'chunked',
          Cookie: 'sid=secret-cookie',
          'Proxy-Authorization': 'Basic c2VjcmV0',
          'X-Injected': 'a\r\nX-Evil: 1',
          'Bad\r\nName': 'value',
        },
      },
      async (connection) => {
        await connection.listTools();
        const received = server.requests.slice(before);
        assert.ok(received.length >= 2);
        const url = new URL(server.url);
        for (const request of received) {
          assert.equal(request.headers['x-tenant'], 'acme');
          assert.equal(request.headers['x-shared'], 'from-config');
          assert.equal(request.headers.authorization, 'Bearer config-key');
          assert.equal(request.headers.host, url.host);
          assert.equal(request.headers.cookie, undefined);
          assert.equal(request.headers['proxy-authorization'], undefined);
          assert.equal(request.headers['x-injected'], undefined);
          assert.equal(request.headers['x-evil'], undefined);
          assert.notEqual(request.headers['mcp-session-id'], 'forged-session');
        }
        // The `server/discover` probe (which this 2025-11-25 server refuses) and `initialize` carry no session id;
        // after them the SDK's real session id is sent, not the forged one.
        assert.ok(
          received.slice(2).every((request) => typeof request.headers['mcp-session-id'] === 'string'),
        );
        const dropped = logger.lines.join('\n');
        for (const name of [
          'Host',
          'Mcp-Session-Id',
          'Content-Length',
          'Transfer-Encoding',
          'Cookie',
          'X-Injected',
        ]) {
          assert.match(dropped, new RegExp(name));
        }
        assert.match(dropped, /Bad\\\\r\\\\nName/);
        // Names only: no value ever reaches the log.
        for (const secret of ['secret-cookie', 'c2VjcmV0', 'evil.example', 'forged-session', 'X-Evil']) {
          assert.doesNotMatch(dropped, new RegExp(secret));
        }
      },
    );
  });

  test('tools: zero-argument schemas get empty properties; names sanitised; disambiguated name available', async () => {
    await withHttpMcpConnection({ url: server.url, name: 'My Server' }, async (connection) => {
      const tools = await connection.tools();
      const ping = tools.find((tool) => tool.mcpToolName === 'ping');
      assert.ok(ping);
      assert.deepEqual(ping.definition().parameters, { type: 'object', properties: {} });
      assert.equal(ping.disambiguatedName, 'mcp_My_Server_ping');
      const renamed = ping.withName(ping.disambiguatedName);
      assert.equal(renamed.definition().name, 'mcp_My_Server_ping');
      const { context, call } = createTestRunContext({ allowCitations: false });
      // The renamed tool still calls the server's own name.
      assert.equal((await renamed.run(call(renamed.name, {}), context)).llmFacing, 'pong');
      const dotted = tools.find((tool) => tool.mcpToolName === 'files.read/v2');
      assert.ok(dotted);
      assert.equal(dotted.name, 'files_read_v2');
      assert.equal((await dotted.run(call(dotted.name, {}), context)).llmFacing, 'read');
    });
  });

  test('isError results are failures with the server text for the model; thrown server errors are execution errors', async () => {
    await withHttpMcpConnection({ url: server.url }, async (connection) => {
      const tools = await connection.tools();
      const { context, emitted, call } = createTestRunContext({ allowCitations: false });
      const lookup = tools.find((tool) => tool.mcpToolName === 'lookup');
      assert.ok(lookup);
      await assert.rejects(
        () => lookup.run(call('lookup', {}), context),
        (error: unknown) =>
          ToolCallError.isInstance(error) &&
          error.modelMessage === 'Order 17 does not exist; list orders first.',
      );
      const broken = tools.find((tool) => tool.mcpToolName === 'broken');
      assert.ok(broken);
      await assert.rejects(
        () => broken.run(call('broken', {}), context),
        (error: unknown) => ToolExecutionError.isInstance(error) && error.code === 'mcp_protocol_error',
      );
      // A failure never emits a result packet.
      assert.equal(emitted.filter((packet) => packet.type === 'custom-tool-delta').length, 0);
    });
  });

  test('embedded resources: text goes to the model, blobs to the file store', async () => {
    const saved: string[] = [];
    await withMcpConnection(
      { id: 'loopback', name: 'loopback', transport: { type: 'streamable-http', url: server.url } },
      {
        fetch: createRecordingFetch().fetch,
        fileStore: {
          async save(file) {
            saved.push(`${file.name}:${[...file.data].join(',')}`);
            return { fileId: 'f1', name: file.name, mediaType: file.mediaType };
          },
        },
      },
      async (connection) => {
        const report = (await connection.tools()).find((tool) => tool.mcpToolName === 'report');
        assert.ok(report);
        const { context, call } = createTestRunContext({ allowCitations: false });
        const result = await report.run(call('report', {}), context);
        assert.match(result.llmFacing, /resource: file:\/\/\/report.txt\nRevenue up 3%/);
        assert.match(result.llmFacing, /kept as file f1/);
        assert.deepEqual(saved, ['data.bin:0,1,2']);
      },
    );
  });

  test('an aborted call rejects with the abort reason (the runner owns timeouts and cancellation)', async () => {
    const connection = await connectMcpServer(
      { id: 'loopback', name: 'loopback', transport: { type: 'streamable-http', url: server.url } },
      { fetch: createRecordingFetch().fetch },
    );
    try {
      const slow = (await connection.tools()).find((tool) => tool.mcpToolName === 'slow');
      assert.ok(slow);
      const controller = new AbortController();
      const { context, call } = createTestRunContext({ signal: controller.signal, allowCitations: false });
      const started = new Promise<void>((resolve) => {
        slowToolStarted = resolve;
      });
      const running = slow.run(call('slow', {}), context);
      await started;
      const reason = new Error('turn cancelled');
      controller.abort(reason);
      await assert.rejects(running, (error: unknown) => error === reason);
    } finally {
      releaseSlowTool();
      await connection.close();
    }
  });

  test('a large result is cut for the model, with a note', async () => {
    await withHttpMcpConnection({ url: server.url, maxResultChars: 1000 }, async (connection) => {
      const chatty = (await connection.tools()).find((tool) => tool.mcpToolName === 'chatty');
      assert.ok(chatty);
      const { context, call } = createTestRunContext({ allowCitations: false });
      const result = await chatty.run(call('chatty', {}), context);
      assert.equal(result.llmFacing, `${'x'.repeat(1000)}\n\n[result cut at 1000 of 5000 characters]`);
    });
  });

  test('tools/list_changed refreshes the cached list and notifies listeners', async () => {
    const connection = await connectMcpServer(
      { id: 'loopback', name: 'loopback', transport: { type: 'streamable-http', url: server.url } },
      { fetch: createRecordingFetch().fetch },
    );
    try {
      const before = await connection.listTools();
      assert.ok(!before.some((tool) => tool.name === 'added'));
      const changed = new Promise<readonly McpToolDescriptor[]>((resolve) =>
        connection.onToolsChanged(resolve),
      );
      const added: LoopbackTool = {
        tool: { name: 'added', description: 'New', inputSchema: { type: 'object', properties: {} } },
        call: () => ({ content: [{ type: 'text', text: 'new' }] }),
      };
      await server.setTools([zeroArgumentTool, added]);
      const fresh = await changed;
      assert.deepEqual(
        fresh.map((tool) => tool.name),
        ['ping', 'added'],
      );
      assert.equal(await connection.listTools(), fresh);
      assert.deepEqual(
        (await connection.tools()).map((tool) => tool.name),
        ['ping', 'added'],
      );
    } finally {
      await server.setTools(allTools);
      await connection.close();
    }
  });
});

describe('connectMcpServer fails closed', () => {
  test('an HTTP server without a fetch is refused (no fallback to the global fetch)', async () => {
    await assert.rejects(
      () =>
        connectMcpServer({
          id: 's',
          name: 's',
          transport: { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp' },
        }),
      (error: unknown) => McpConnectionError.isInstance(error) && error.code === 'mcp_fetch_required',
    );
  });

  test('an OAuth server without a token store is refused before any request', async () => {
    const recording = createRecordingFetch();
    await assert.rejects(
      () =>
        connectMcpServer(
          {
            id: 's',
            name: 's',
            transport: { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp' },
            auth: { type: 'oauth' },
          },
          { fetch: recording.fetch },
        ),
      (error: unknown) => McpConnectionError.isInstance(error) && error.code === 'mcp_oauth_not_configured',
    );
    assert.equal(recording.records.length, 0);
  });

  test('non-http schemes are refused', async () => {
    await assert.rejects(
      () =>
        connectMcpServer(
          { id: 's', name: 's', transport: { type: 'streamable-http', url: 'file:///etc/passwd' } },
          { fetch: createRecordingFetch().fetch },
        ),
      (error: unknown) => McpConnectionError.isInstance(error) && error.code === 'mcp_invalid_config',
    );
  });

  test('a stdio command that does not speak MCP gives a typed connection error', async () => {
    await assert.rejects(
      () =>
        connectMcpServer(
          {
            id: 's',
            name: 's',
            transport: {
              type: 'stdio',
              command: process.execPath,
              args: ['-e', 'console.error("boom"); process.exit(3)'],
            },
          },
          { requestTimeoutMs: 5000 },
        ),
      (error: unknown) => McpConnectionError.isInstance(error) && error.code === 'mcp_connection_failed',
    );
  });
});

describe('connectMcpServer: header templates and missing authentication', () => {
  let server: LoopbackMcpServer;
  before(async () => {
    server = await startLoopbackMcpServer([zeroArgumentTool], { requiredAuthorization: 'Bearer s3{cret}' });
  });
  after(() => server.close());
  const config = (auth: McpServerConfig['auth']): McpServerConfig => ({
    id: 'templated',
    name: 'templated',
    transport: { type: 'streamable-http', url: server.url },
    ...omitUndefined({ auth }),
  });

  test("header templates are filled from the user's credentials, braces in values kept as they are", async () => {
    const before = server.requests.length;
    const logger = recordingLogger();
    await withMcpConnection(
      config({
        type: 'headers',
        headers: { Authorization: 'Bearer {token}', 'X-Wide': 'caf\u0113', 'X-Region': '{region}' },
        credentials: { token: 's3{cret}', cret: 'EXPANDED-TWICE' },
      }),
      { fetch: createRecordingFetch().fetch, logger },
      async (connection) => {
        assert.deepEqual(
          (await connection.listTools()).map((tool) => tool.name),
          ['ping'],
        );
        const received = server.requests.slice(before);
        assert.ok(received.length >= 2);
        for (const request of received) {
          assert.equal(request.headers.authorization, 'Bearer s3{cret}');
          assert.equal(request.headers['x-wide'], undefined);
          assert.equal(request.headers['x-region'], undefined);
        }
        const log = logger.lines.join('\n');
        assert.match(log, /X-Wide.*invalid-value/);
        assert.match(log, /X-Region.*region/);
        assert.doesNotMatch(log, /s3\{cret\}|caf/);
      },
    );
  });

  test('a server that needs authentication and gets none says so, naming the missing credential', async () => {
    const missing = await connectMcpServer(
      config({ type: 'headers', headers: { Authorization: 'Bearer {token}' }, credentials: {} }),
      { fetch: createRecordingFetch().fetch, logger: recordingLogger() },
    ).then(
      () => assert.fail('connected without credentials'),
      (error: unknown) => error,
    );
    assert.ok(McpConnectionError.isInstance(missing));
    assert.equal(missing.code, 'mcp_authentication_required');
    assert.match(missing.message, /requires authentication.*\{token\}/);

    const none = await connectMcpServer(config(undefined), {
      fetch: createRecordingFetch().fetch,
      logger: recordingLogger(),
    }).then(
      () => assert.fail('connected without credentials'),
      (error: unknown) => error,
    );
    assert.ok(McpConnectionError.isInstance(none));
    assert.equal(none.code, 'mcp_authentication_required');
    assert.match(none.message, /no authentication is configured/);
  });
});

describe('connectMcpServer: credentials refused mid-session', () => {
  test('a 401 on a tool call says the credentials need renewing, as an execution error with an error packet', async () => {
    const handler = createLoopbackMcpHandler([zeroArgumentTool]);
    let accepted = 'Bearer first';
    const http = createServer((request, response) => {
      if (request.headers.authorization !== accepted) {
        response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
        return;
      }
      void handler.handle(request, response);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const connection = await connectMcpServer(
      {
        id: 'rotating',
        name: 'rotating',
        transport: { type: 'streamable-http', url },
        auth: {
          type: 'headers',
          headers: { Authorization: 'Bearer {token}' },
          credentials: { token: 'first' },
        },
      },
      { fetch: createRecordingFetch().fetch, logger: recordingLogger() },
    );
    try {
      const [ping] = await connection.tools();
      assert.ok(ping);
      accepted = 'Bearer second';
      const { context, call } = createTestRunContext({ allowCitations: false });
      await assert.rejects(
        ping.run(call(ping.name, {}), context),
        (error: unknown) =>
          ToolExecutionError.isInstance(error) &&
          error.code === 'mcp_authentication_required' &&
          error.emitErrorPacket &&
          /connect to the server again/.test(error.message),
      );
    } finally {
      await connection.close().catch(() => undefined);
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });
});
