// Proof against the real `@modelcontextprotocol/server-everything` from npm: over stdio (a child process of this
// Node 24), over Streamable HTTP and over the older HTTP+SSE transport on loopback.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestRunContext } from '@toolbus/core/testing';
import { ToolCallError } from '@toolbus/spec';
import { everythingServerEntry, startEverythingHttpServer } from './__fixtures__/everything-server.ts';
import { createRecordingFetch } from './__fixtures__/recording-fetch.ts';
import { withMcpConnection } from './__fixtures__/with-mcp-connection.ts';
import { connectMcpServer, type McpConnection } from './connect-mcp-server.ts';
import type { McpFileStore } from './mcp-file-store.ts';

function memoryFileStore(): McpFileStore & { readonly saved: { data: Uint8Array; mediaType: string }[] } {
  const saved: { data: Uint8Array; mediaType: string }[] = [];
  return {
    saved,
    async save(file) {
      saved.push({ data: file.data, mediaType: file.mediaType });
      return {
        fileId: `file-${saved.length}`,
        name: file.name,
        mediaType: file.mediaType,
        sizeBytes: file.data.length,
      };
    },
  };
}

async function exercise(
  connection: McpConnection,
  fileStore: ReturnType<typeof memoryFileStore>,
): Promise<void> {
  const descriptors = await connection.listTools();
  const names = descriptors.map((descriptor) => descriptor.name);
  for (const expected of ['echo', 'get-sum', 'get-tiny-image', 'get-resource-links']) {
    assert.ok(names.includes(expected), `missing ${expected} in ${names.join(',')}`);
  }
  const tools = await connection.tools();
  const byName = new Map(tools.map((tool) => [tool.mcpToolName, tool]));
  for (const tool of tools) assert.match(tool.name, /^[a-zA-Z0-9_-]{1,64}$/);
  const { context, emitted, call } = createTestRunContext({ allowCitations: false });

  const echo = byName.get('echo');
  assert.ok(echo);
  const echoed = await echo.run(call(echo.name, { message: 'hello toolbus' }), context);
  assert.match(echoed.llmFacing, /hello toolbus/);
  assert.equal(echoed.rich?.type, 'custom-tool');
  const delta = emitted.find((packet) => packet.type === 'custom-tool-delta');
  assert.ok(delta && delta.type === 'custom-tool-delta');
  assert.equal(delta.toolName, echo.name);

  const sum = byName.get('get-sum');
  assert.ok(sum);
  assert.match((await sum.run(call(sum.name, { a: 2, b: 40 }), context)).llmFacing, /42/);

  // Wrong argument types: the server answers with an isError result, which must be a failure for the model.
  await assert.rejects(
    () => sum.run(call(sum.name, { a: 'two', b: 40 }), context),
    (error: unknown) => {
      assert.ok(ToolCallError.isInstance(error));
      assert.equal(error.code, 'mcp_tool_error');
      assert.ok(error.modelMessage.length > 0);
      return true;
    },
  );

  const image = byName.get('get-tiny-image');
  assert.ok(image);
  // A zero-argument tool: its definition still has an object schema with `properties`.
  assert.deepEqual(image.definition().parameters.properties ?? null, {});
  const imageResult = await image.run(call(image.name, {}), context);
  assert.equal(fileStore.saved.length, 1);
  const saved = fileStore.saved[0];
  assert.ok(saved);
  assert.equal(saved.mediaType, 'image/png');
  assert.deepEqual([...saved.data.subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
  assert.match(imageResult.llmFacing, /kept as file file-1/);
  assert.ok(imageResult.rich?.type === 'custom-tool' && imageResult.rich.files.length === 1);

  const links = byName.get('get-resource-links');
  assert.ok(links);
  const linked = await links.run(call(links.name, { count: 2 }), context);
  assert.match(linked.llmFacing, /link: demo:\/\//);
}

describe('server-everything over stdio', () => {
  let connection: McpConnection;
  const fileStore = memoryFileStore();
  before(async () => {
    connection = await connectMcpServer(
      {
        id: 'everything-stdio',
        name: 'everything',
        transport: { type: 'stdio', command: process.execPath, args: [everythingServerEntry, 'stdio'] },
      },
      { fileStore },
    );
  });
  after(() => connection.close());

  test('lists and calls tools: text, sums, isError failures, images to files, resource links', async () => {
    assert.equal(connection.transport, 'stdio');
    await exercise(connection, fileStore);
  });

  test('the child gets a minimal environment plus the configured one, never the host process secrets', async () => {
    process.env.TOOLBUS_TEST_HOST_SECRET = 'host-secret-value';
    const withEnv = await connectMcpServer({
      id: 'everything-env',
      name: 'everything',
      transport: {
        type: 'stdio',
        command: process.execPath,
        args: [everythingServerEntry, 'stdio'],
        env: { CONFIGURED_VALUE: 'configured' },
      },
    });
    try {
      const result = await withEnv.callTool({ name: 'get-env', arguments: {} });
      const text = result.content?.find((block) => block.type === 'text')?.text;
      assert.equal(typeof text, 'string');
      const environment = JSON.parse(text as string) as Record<string, string>;
      assert.equal(environment.CONFIGURED_VALUE, 'configured');
      assert.equal(environment.TOOLBUS_TEST_HOST_SECRET, undefined);
      assert.equal(environment.TOOLBUS_TEST, undefined);
    } finally {
      delete process.env.TOOLBUS_TEST_HOST_SECRET;
      await withEnv.close();
    }
  });

  test('the tool list is cached: a second listTools returns the same list without a new request', async () => {
    const first = await connection.listTools();
    const second = await connection.listTools();
    assert.equal(first, second);
  });
});

describe('server-everything over Streamable HTTP on loopback', () => {
  let server: Awaited<ReturnType<typeof startEverythingHttpServer>>;
  before(async () => {
    server = await startEverythingHttpServer('streamableHttp');
  });
  after(() => server.close());

  test('every request goes through the given fetch; tools work as over stdio', async () => {
    const recording = createRecordingFetch();
    const fileStore = memoryFileStore();
    await withMcpConnection(
      {
        id: 'everything-http',
        name: 'everything',
        transport: { type: 'streamable-http', url: `${server.baseUrl}/mcp` },
      },
      { fetch: recording.fetch, fileStore },
      async (connection) => {
        assert.equal(connection.transport, 'streamable-http');
        await exercise(connection, fileStore);
        assert.ok(recording.records.length >= 5);
        for (const record of recording.records) assert.ok(record.url.startsWith(server.baseUrl), record.url);
      },
    );
  });

  test('auto picks Streamable HTTP when the server speaks it', async () => {
    const recording = createRecordingFetch();
    await withMcpConnection(
      {
        id: 'everything-auto',
        name: 'everything',
        transport: { type: 'auto', url: `${server.baseUrl}/mcp` },
      },
      { fetch: recording.fetch },
      async (connection) => {
        assert.equal(connection.transport, 'streamable-http');
      },
    );
  });
});

describe('server-everything over HTTP+SSE (older servers)', () => {
  let server: Awaited<ReturnType<typeof startEverythingHttpServer>>;
  before(async () => {
    server = await startEverythingHttpServer('sse');
  });
  after(() => server.close());

  test('sse transport lists and calls tools', async () => {
    const recording = createRecordingFetch();
    await withMcpConnection(
      { id: 'everything-sse', name: 'everything', transport: { type: 'sse', url: `${server.baseUrl}/sse` } },
      { fetch: recording.fetch },
      async (connection) => {
        assert.equal(connection.transport, 'sse');
        const tools = await connection.tools();
        const echo = tools.find((tool) => tool.mcpToolName === 'echo');
        assert.ok(echo);
        const { context, call } = createTestRunContext({ allowCitations: false });
        assert.match(
          (await echo.run(call(echo.name, { message: 'over sse' }), context)).llmFacing,
          /over sse/,
        );
        assert.ok(recording.records.some((record) => record.url.endsWith('/sse')));
        assert.ok(recording.records.some((record) => record.url.includes('/message')));
      },
    );
  });

  test('auto falls back to SSE when Streamable HTTP is refused', async () => {
    const recording = createRecordingFetch();
    await withMcpConnection(
      {
        id: 'everything-auto-sse',
        name: 'everything',
        transport: { type: 'auto', url: `${server.baseUrl}/sse` },
      },
      { fetch: recording.fetch },
      async (connection) => {
        assert.equal(connection.transport, 'sse');
        assert.ok((await connection.listTools()).some((tool) => tool.name === 'echo'));
        // The first attempt was a Streamable HTTP POST to the same URL.
        assert.equal(recording.records[0]?.method, 'POST');
      },
    );
  });
});
