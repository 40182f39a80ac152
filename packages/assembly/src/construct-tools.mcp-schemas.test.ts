// One MCP tool whose input schema no provider accepts never fails the assembly: it is set aside with the tool's
// name and the reason, and the server's other tools (normalised where needed) are offered. A real SDK server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Tool as McpWireTool } from '@modelcontextprotocol/sdk/types.js';
import { echoLoopbackTool, type LoopbackMcpServer, startLoopbackMcpServer } from '@toolbus/mcp/testing';
import { openStorage } from '@toolbus/storage';
import { constructTestTools } from './__fixtures__/construct-test-tools.ts';
import { recursiveWireTool } from './__fixtures__/mcp-wire-tools.ts';

const withRef: McpWireTool = {
  name: 'route',
  description: 'Plans a route.',
  inputSchema: {
    type: 'object',
    $defs: { city: { type: 'string' } },
    properties: { from: { $ref: '#/$defs/city' } },
  } as McpWireTool['inputSchema'],
};

describe('MCP tools whose schema no provider accepts', () => {
  let loopback: LoopbackMcpServer;
  before(async () => {
    loopback = await startLoopbackMcpServer([withRef, recursiveWireTool].map(echoLoopbackTool));
  });
  after(() => loopback.close());

  test('are set aside by name with the reason; the others are offered with a normalised schema', async () => {
    const storage = await openStorage({ path: ':memory:', environment: {} });
    const persona = await storage.personas.create({ name: 'schemas' });
    const server = await storage.mcpServers.create({
      name: 'maps',
      endpoint: { transport: 'streamable-http', url: loopback.url },
      authType: 'none',
    });
    const routeRow = await storage.personas.addToolRow(persona.id, {
      kind: 'mcp',
      serverId: server.id,
      toolName: 'route',
    });
    const treeRow = await storage.personas.addToolRow(persona.id, {
      kind: 'mcp',
      serverId: server.id,
      toolName: 'tree',
    });
    const assembly = await constructTestTools({
      persona,
      storage,
      requireMcpApproval: false,
    });
    try {
      assert.deepEqual(
        assembly.tools.map((tool) => tool.name),
        ['route'],
      );
      assert.deepEqual(assembly.tools[0]?.definition().parameters, {
        type: 'object',
        properties: { from: { type: 'string' } },
      });
      const skipped = assembly.skipped.find((item) => item.rowId === treeRow.id);
      assert.equal(skipped?.reason, 'mcp-schema-unsupported');
      assert.match(
        skipped?.message ?? '',
        /"tree".*set aside: its input schema cannot be offered: \$ref "#\/\$defs\/node" is recursive/,
      );
      assert.equal(
        assembly.skipped.find((item) => item.rowId === routeRow.id),
        undefined,
      );
    } finally {
      await assembly.close();
      await storage.close();
    }
  });
});
