// A tool call the server refuses with a JSON-RPC error (invalid arguments, -32602): the SDK puts "MCP error -32602: "
// into the message it sends and the client's SDK adds it again; the model and the user see the code once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestRunContext } from '@toolbus/core/testing';
import { ToolbusError } from '@toolbus/spec';
import { withMcpConnection } from './__fixtures__/with-mcp-connection.ts';

const serverScript = new URL('./__fixtures__/strict-arguments-mcp-server.mjs', import.meta.url).pathname;

test('invalid arguments refused by a stdio MCP server name the MCP error code once', async () => {
  await withMcpConnection(
    {
      id: 'strict',
      name: 'strict',
      transport: { type: 'stdio', command: process.execPath, args: [serverScript] },
    },
    {},
    async (connection) => {
      const add = (await connection.tools()).find((tool) => tool.mcpToolName === 'add');
      assert.ok(add);
      const { context, call } = createTestRunContext({ allowCitations: false });
      assert.match((await add.run(call(add.name, { a: 2, b: 40 }), context)).llmFacing, /42/);
      await assert.rejects(
        () => add.run(call(add.name, { a: 'two', b: 40 }), context),
        (error: unknown) => {
          assert.ok(ToolbusError.isInstance(error));
          assert.equal(
            error.message,
            'MCP tool "add" on server "strict" failed: MCP error -32602: Invalid arguments for tool add: a and b must be numbers',
          );
          return true;
        },
      );
    },
  );
});
