// Per-user access to an MCP server in chat assembly: once an administrator limits a server to some users, nobody
// else gets its tools (and the server is not even dialled for them); an assembly without a user gets none of a
// restricted server's tools; a server never restricted stays open to all.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { echoLoopbackTool, type LoopbackMcpServer, startLoopbackMcpServer } from '@toolbus/mcp/testing';
import { openStorage, type Persona, type Storage, setMcpServerAccess, type User } from '@toolbus/storage';
import { constructTestTools } from './__fixtures__/construct-test-tools.ts';
import { offerMcpTools } from './__fixtures__/offered-mcp-tools.ts';

let storage: Storage;
let persona: Persona;
let alice: User;
let bob: User;
let mcp: LoopbackMcpServer;
let serverId: string;

before(async () => {
  mcp = await startLoopbackMcpServer([
    echoLoopbackTool({ name: 'lookup', inputSchema: { type: 'object', properties: {} } }),
  ]);
  storage = await openStorage({ path: ':memory:', environment: {} });
  persona = await storage.personas.create({ name: 'Support' });
  alice = await storage.users.create({ email: 'alice@example.com' });
  bob = await storage.users.create({ email: 'bob@example.com' });
  serverId = await offerMcpTools(storage, persona.id, { name: 'crm', url: mcp.url }, ['lookup']);
});
after(async () => {
  await storage.close();
  await mcp.close();
});

async function toolsOf(user: User | undefined) {
  const assembly = await constructTestTools({
    persona,
    user,
    storage,
    requireMcpApproval: false,
  });
  await assembly.close();
  return {
    names: assembly.tools.map((tool) => tool.name),
    reasons: assembly.skipped.map((item) => item.reason),
    messages: assembly.skipped.map((item) => item.message),
  };
}

test('a server limited to some users gives its tools to them only, and to no userless assembly', async () => {
  // Never restricted: every user, and a userless assembly (the CLI's), gets the tool.
  assert.deepEqual((await toolsOf(bob)).names, ['lookup']);
  assert.deepEqual((await toolsOf(undefined)).names, ['lookup']);

  await setMcpServerAccess(storage, serverId, { userIds: [alice.id] });
  assert.deepEqual((await toolsOf(alice)).names, ['lookup']);

  const dialled = mcp.requests.length;
  const denied = await toolsOf(bob);
  assert.deepEqual(denied.names, []);
  assert.deepEqual(denied.reasons, ['mcp-access-denied']);
  assert.match(denied.messages[0] ?? '', /MCP server "crm" is not available to this user/);
  assert.deepEqual((await toolsOf(undefined)).names, []);
  assert.equal(mcp.requests.length, dialled, 'the server is not dialled for a user without access');

  // An empty list: nobody. A record that is not valid reads as nobody too (a doubt never widens access).
  await setMcpServerAccess(storage, serverId, { userIds: [] });
  assert.deepEqual((await toolsOf(alice)).names, []);
  await storage.settings.set(`mcp-server-access:${serverId}`, { userIds: 'everyone' });
  assert.deepEqual((await toolsOf(alice)).names, []);
});
