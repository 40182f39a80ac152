// A persona's MCP tool whose input schema no provider accepts (a recursive `$ref`) is set aside, and the turn's
// `tool-mode` packet says which tool and why, as `toolbus mcp list` and the admin review do. A real MCP server on
// loopback, a real `toolbus serve` HTTP server, the scripted model over HTTP.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Tool as McpWireTool } from '@modelcontextprotocol/sdk/types.js';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import { toolDefinitionHash } from '@toolbus/mcp';
import { echoLoopbackTool, type LoopbackMcpServer, startLoopbackMcpServer } from '@toolbus/mcp/testing';
import type { Storage } from '@toolbus/storage';
import {
  lookupThenAnswer,
  lookupToolFactories,
  openTestStorage,
  readSse,
} from '../__fixtures__/test-server.ts';
import { createServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';

const tree: McpWireTool = {
  name: 'tree',
  description: 'Takes a tree.',
  inputSchema: {
    type: 'object',
    $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } },
    properties: { root: { $ref: '#/$defs/node' } },
  } as McpWireTool['inputSchema'],
};
const echo: McpWireTool = {
  name: 'echo',
  description: 'Echoes.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
};

let model: ScriptedModelServer;
let mcp: LoopbackMcpServer;
let storage: Storage;
let http: ListeningServer;

before(async () => {
  model = await startScriptedModelServer({ handler: lookupThenAnswer() });
  mcp = await startLoopbackMcpServer([tree, echo].map(echoLoopbackTool));
  ({ storage } = await openTestStorage());
  const persona = (await storage.personas.list()).find((item) => item.name === 'default');
  assert.ok(persona);
  const server = await storage.mcpServers.create({
    name: 'shapes',
    endpoint: { transport: 'streamable-http', url: mcp.url },
    authType: 'none',
  });
  for (const tool of [tree, echo]) {
    await storage.personas.addToolRow(persona.id, { kind: 'mcp', serverId: server.id, toolName: tool.name });
    const definitionHash = await toolDefinitionHash({
      name: tool.name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema,
    });
    await storage.mcpServers.approveTool({
      serverId: server.id,
      toolName: tool.name,
      definitionHash,
      approvedBy: 'admin',
    });
  }
  const app = await createServer({
    storage,
    auth: 'local',
    defaultModel: `openai-compatible:${model.url}/v1#scripted`,
    builtInToolFactories: () => lookupToolFactories(),
    // The MCP server is on loopback, which the default guarded fetch refuses.
    fetch,
  });
  http = await listen(app, { port: 0 });
});
after(async () => {
  await http.close();
  await storage.close();
  await model.close();
  await mcp.close();
});

test("the turn's tool-mode packet names the set-aside tool and why; the others are offered", async () => {
  const chat = (await (
    await fetch(`${http.url}/v1/chats`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
  ).json()) as { id: string };
  const events = await readSse(
    await fetch(`${http.url}/v1/chats/${chat.id}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'draw a tree' }),
    }),
  );
  const packets = events.map((event) => (JSON.parse(event.data) as { obj: Record<string, unknown> }).obj);
  const mode = packets.find((packet) => packet.type === 'tool-mode') as
    | { total: number; setAside: { name: string; reason: string }[] }
    | undefined;
  assert.ok(mode, `a tool-mode packet: ${JSON.stringify(packets.slice(0, 3))}`);
  assert.equal(mode.setAside.length, 1);
  assert.equal(mode.setAside[0]?.name, 'tree');
  assert.match(mode.setAside[0]?.reason ?? '', /MCP tool "tree" of server "shapes" is set aside: .*\$ref/);
  const body = model.requests.at(0)?.body as { tools?: { function?: { name: string } }[] } | undefined;
  const offered = body?.tools?.map((tool) => tool.function?.name);
  assert.ok(offered?.includes('echo'), `echo is offered: ${JSON.stringify(offered)}`);
  assert.ok(!offered?.includes('tree'), 'tree is not offered');
  assert.equal(packets.at(-1)?.type, 'stop');
});
