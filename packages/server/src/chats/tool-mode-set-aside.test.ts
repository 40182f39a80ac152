// A persona's MCP tool whose input schema no provider accepts (a recursive `$ref`) is set aside, and the turn's
// `tool-mode` packet says which tool and why, as `toolbus mcp list` and the admin review do. A real MCP server on
// loopback, a real `toolbus serve` HTTP server, the scripted model over HTTP.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { echoLoopbackTool, type LoopbackMcpServer, startLoopbackMcpServer } from '@toolbus/mcp/testing';
import { echoWireTool, recursiveWireTool } from '../../../assembly/src/__fixtures__/mcp-wire-tools.ts';
import { seedApprovedMcpServer } from '../__fixtures__/approved-mcp-server.ts';
import {
  lookupThenAnswer,
  lookupToolFactories,
  type ScriptedTestServer,
  startScriptedTestServer,
} from '../__fixtures__/test-server.ts';

let mcp: LoopbackMcpServer;
let world: ScriptedTestServer;

before(async () => {
  mcp = await startLoopbackMcpServer([recursiveWireTool, echoWireTool].map(echoLoopbackTool));
  world = await startScriptedTestServer({
    handler: lookupThenAnswer(),
    toolFactories: () => lookupToolFactories(),
    // The MCP server is on loopback, which the default guarded fetch refuses.
    server: { fetch },
    async seed(storage) {
      const persona = (await storage.personas.list()).find((item) => item.name === 'default');
      assert.ok(persona);
      await seedApprovedMcpServer(storage, { name: 'shapes', url: mcp.url, personaId: persona.id, fetch });
    },
  });
});
after(async () => {
  await world.close();
  await mcp.close();
});

test("the turn's tool-mode packet names the set-aside tool and why; the others are offered", async () => {
  const packets = (await world.runTurn('draw a tree')).packets.map((packet) => packet.obj);
  const mode = packets.find((packet) => packet.type === 'tool-mode') as
    | { total: number; setAside: { name: string; reason: string }[] }
    | undefined;
  assert.ok(mode, `a tool-mode packet: ${JSON.stringify(packets.slice(0, 3))}`);
  assert.equal(mode.setAside.length, 1);
  assert.equal(mode.setAside[0]?.name, 'tree');
  assert.match(mode.setAside[0]?.reason ?? '', /MCP tool "tree" of server "shapes" is set aside: .*\$ref/);
  const body = world.model.requests.at(0)?.body as { tools?: { function?: { name: string } }[] } | undefined;
  const offered = body?.tools?.map((tool) => tool.function?.name);
  assert.ok(offered?.includes('echo'), `echo is offered: ${JSON.stringify(offered)}`);
  assert.ok(!offered?.includes('tree'), 'tree is not offered');
  assert.equal(packets.at(-1)?.type, 'stop');
});
