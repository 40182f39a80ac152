// Per-user MCP credentials in chat assembly, against a real MCP server on loopback that records every request's
// headers: an admin's header template is filled with each user's own stored values and the built-ins, it wins over
// the server's stored headers of the same name, which win over request headers; a deny-listed name in a template is
// dropped with a warning naming it; a user with no values gets a clear error naming the missing placeholder.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { echoLoopbackTool, type LoopbackMcpServer, startLoopbackMcpServer } from '@toolbus/mcp/testing';
import { openStorage, type Persona, type Storage, type User, writeMcpHeaderTemplate } from '@toolbus/storage';
import { constructTestTools } from './__fixtures__/construct-test-tools.ts';
import { offerMcpTools } from './__fixtures__/offered-mcp-tools.ts';

const lookup = echoLoopbackTool({ name: 'lookup', inputSchema: { type: 'object', properties: {} } });
let storage: Storage;
let persona: Persona;
let alice: User;
let bob: User;
let mcp: LoopbackMcpServer;
let guarded: LoopbackMcpServer;

before(async () => {
  mcp = await startLoopbackMcpServer([lookup]);
  guarded = await startLoopbackMcpServer([lookup], { requiredAuthorization: 'Bearer alice-key-1' });
  storage = await openStorage({ path: ':memory:', environment: {} });
  persona = await storage.personas.create({ name: 'Support' });
  alice = await storage.users.create({ email: 'alice@example.com', name: 'Alice' });
  bob = await storage.users.create({ email: 'bob@example.com' });
});
after(async () => {
  await storage.close();
  await mcp.close();
  await guarded.close();
});

function addServer(name: string, url: string, headers: Record<string, string>): Promise<string> {
  return offerMcpTools(storage, persona.id, { name, url, authType: 'headers', headers }, ['lookup']);
}

async function assemble(user: User | undefined, warnings: string[] = []) {
  const assembly = await constructTestTools({
    persona,
    user,
    storage,
    requireMcpApproval: false,
    mcp: {
      requestHeaders: { 'X-Team': 'from-request', 'X-Trace': 'trace-1' },
      logger: { warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields)}`) },
    },
  });
  await assembly.close();
  return assembly;
}

function lastPost(server: LoopbackMcpServer) {
  const post = server.requests.filter((request) => request.method === 'POST').at(-1);
  assert.ok(post, 'the server was dialled');
  return post.headers;
}

test("each user's own values and the built-ins fill the template; template > stored headers > request", async () => {
  const serverId = await addServer('crm', mcp.url, { 'X-User': 'stored-user', 'X-Team': 'stored-team' });
  await writeMcpHeaderTemplate(storage.settings, serverId, {
    Authorization: 'Bearer {api_key}',
    'X-User': '{user_email}',
    'X-Name': '{user_name} ({user_id})',
  });
  await storage.userSecrets.set({
    kind: 'mcpHeaderValues',
    ownerId: serverId,
    userId: alice.id,
    value: { api_key: 'alice-key-1' },
  });
  // A stored value named like a built-in never stands in for it.
  await storage.userSecrets.set({
    kind: 'mcpHeaderValues',
    ownerId: serverId,
    userId: bob.id,
    value: { api_key: 'bob-key-2', user_email: 'alice@example.com' },
  });

  assert.deepEqual(
    (await assemble(alice)).tools.map((tool) => tool.name),
    ['lookup'],
  );
  let headers = lastPost(mcp);
  assert.equal(headers.authorization, 'Bearer alice-key-1');
  assert.equal(headers['x-user'], 'alice@example.com', 'the template wins over the stored header');
  assert.equal(headers['x-name'], `Alice (${alice.id})`);
  assert.equal(headers['x-team'], 'stored-team', 'the stored header wins over the request header');
  assert.equal(headers['x-trace'], 'trace-1');

  await assemble(bob);
  headers = lastPost(mcp);
  assert.equal(headers.authorization, 'Bearer bob-key-2');
  assert.equal(headers['x-user'], 'bob@example.com');
  assert.equal(headers['x-name'], undefined, 'bob has no name: the header is left out, never half filled');

  // A template needs a user: a userless assembly does not dial the server (fail closed).
  const dialled = mcp.requests.length;
  const userless = await assemble(undefined);
  assert.deepEqual(userless.tools, []);
  assert.deepEqual(
    userless.skipped.map((item) => [item.reason, item.message]),
    [
      [
        'mcp-auth-required',
        'MCP server "crm": its headers are filled per user, and there is no signed-in user.',
      ],
    ],
  );
  assert.equal(mcp.requests.length, dialled);
  await writeMcpHeaderTemplate(storage.settings, serverId, {});
  await storage.personas.removeToolRow((await storage.personas.listToolRows(persona.id))[0]!.id);
});

test('a deny-listed name in a stored template is dropped with a warning naming it, never its value', async () => {
  const serverId = await addServer('wiki', mcp.url, {});
  await writeMcpHeaderTemplate(storage.settings, serverId, {
    Host: '{api_key}.evil.example',
    'X-Forwarded-For': '{api_key}',
    'X-Key': '{api_key}',
  });
  await storage.userSecrets.set({
    kind: 'mcpHeaderValues',
    ownerId: serverId,
    userId: alice.id,
    value: { api_key: 'secret-77' },
  });
  const warnings: string[] = [];
  assert.deepEqual(
    (await assemble(alice, warnings)).tools.map((tool) => tool.name),
    ['lookup'],
  );
  const headers = lastPost(mcp);
  assert.equal(headers['x-key'], 'secret-77');
  assert.equal(headers['x-forwarded-for'], undefined);
  assert.notEqual(headers.host, 'secret-77.evil.example');
  const drops = warnings.filter((line) => line.startsWith('Dropped MCP header'));
  assert.ok(drops.some((line) => line.includes('\\"Host\\"') && line.includes('"layer":"template"')));
  assert.ok(drops.some((line) => line.includes('X-Forwarded-For')));
  assert.ok(
    warnings.every((line) => !line.includes('secret-77')),
    'no value is ever logged',
  );
  await storage.personas.removeToolRow((await storage.personas.listToolRows(persona.id))[0]!.id);
});

test('a user without values gets an error naming the missing placeholder; with them, access', async () => {
  const serverId = await addServer('guarded', guarded.url, {});
  await writeMcpHeaderTemplate(storage.settings, serverId, { Authorization: 'Bearer {api_key}' });
  const refused = await assemble(bob);
  assert.deepEqual(refused.tools, []);
  assert.equal(refused.skipped[0]?.reason, 'mcp-server-failed');
  assert.match(refused.skipped[0]?.message ?? '', /no stored value for \{api_key\}/);
  await storage.userSecrets.set({
    kind: 'mcpHeaderValues',
    ownerId: serverId,
    userId: alice.id,
    value: { api_key: 'alice-key-1' },
  });
  assert.deepEqual(
    (await assemble(alice)).tools.map((tool) => tool.name),
    ['lookup'],
  );
});
