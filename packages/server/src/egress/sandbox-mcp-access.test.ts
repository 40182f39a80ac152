// Which MCP servers a sandbox is offered: only those an administrator made available to sandboxes, and only to
// users with access. A request from any other user's sandbox to such a server is claimed and refused with no
// credential, never forwarded bare with the stored one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decideEgress, type EgressIdentity } from '@toolbus/egress';
import { offeredToSandboxes, type Storage, setMcpServerAccess } from '@toolbus/storage';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { storageEgressCatalogue } from './sandbox-egress.ts';
import { storageSandboxMcpServers } from './storage-mcp-egress.ts';

let storage: Storage;
let alice: EgressIdentity;
let bob: EgressIdentity;
const storedKey = 'WIKI-STORED-KEY-4471';

before(async () => {
  ({ storage } = await openTestStorage());
  alice = { sandboxId: 'sandbox-a', userId: (await storage.users.create({ email: 'alice@example.com' })).id };
  bob = { sandboxId: 'sandbox-b', userId: (await storage.users.create({ email: 'bob@example.com' })).id };
});
after(async () => {
  await storage.close();
});

const names = async (identity: EgressIdentity) =>
  (await storageSandboxMcpServers(storage, identity)).map((server) => server.name);

describe('the MCP servers a sandbox is offered', () => {
  it('the shared predicate: available to sandboxes and usable by the user; nothing for a request without a user', () => {
    assert.equal(offeredToSandboxes(undefined, 'u1'), false, 'off until an administrator turns it on');
    assert.equal(offeredToSandboxes({ availableToSandboxes: true }, 'u1'), true);
    assert.equal(offeredToSandboxes({ availableToSandboxes: true, userIds: ['u2'] }, 'u1'), false);
    assert.equal(offeredToSandboxes({ availableToSandboxes: true, userIds: ['u1'] }, 'u1'), true);
    assert.equal(offeredToSandboxes({ availableToSandboxes: true }, undefined), false);
    assert.equal(offeredToSandboxes({ userIds: ['u1'] }, 'u1'), false);
  });

  it('filters by availability and access, and a broken stored value gives nobody anything', async () => {
    const wiki = await storage.mcpServers.create({
      name: 'wiki',
      endpoint: { transport: 'streamable-http', url: 'https://wiki.example/mcp' },
      authType: 'headers',
      headers: { 'X-Wiki-Key': storedKey },
    });
    const crm = await storage.mcpServers.create({
      name: 'crm',
      endpoint: { transport: 'streamable-http', url: 'https://crm.example/mcp' },
      authType: 'none',
    });
    assert.deepEqual(await names(alice), [], 'nothing is offered before an administrator says so');
    await setMcpServerAccess(storage, wiki.id, {
      availableToSandboxes: true,
      userIds: [alice.userId as string],
    });
    await setMcpServerAccess(storage, crm.id, { availableToSandboxes: true });
    assert.deepEqual(await names(alice), ['crm', 'wiki']);
    assert.deepEqual(await names(bob), ['crm'], 'bob has no access to the wiki');
    await storage.settings.set(`mcp-server-access:${crm.id}`, { availableToSandboxes: 'yes' });
    assert.deepEqual(await names(bob), [], 'a value that does not parse widens nothing');
  });

  it("refuses bob's sandbox calling the wiki, without its credential; alice's gets it", async () => {
    const catalogue = storageEgressCatalogue(storage);
    const request = (connection: string) => ({
      method: 'POST',
      url: 'https://wiki.example/mcp',
      headers: [['content-type', 'application/json']] as const,
      body: new TextEncoder().encode(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
      ),
      connection,
    });
    const context = {
      identify: (connection: string) => (connection === 'alice' ? alice : bob),
      resolveHost: async () => ['93.184.215.14'],
      ...catalogue,
    };
    const forBob = await decideEgress(request('bob'), context);
    assert.equal(forBob.outcome, 'blocked');
    assert.equal(forBob.outcome === 'blocked' ? forBob.code : '', 'credential_error');
    assert.ok(!JSON.stringify(forBob).includes(storedKey));
    const forAlice = await decideEgress(request('alice'), context);
    assert.equal(forAlice.outcome, 'injected', JSON.stringify(forAlice));
    assert.ok(JSON.stringify(forAlice).includes(storedKey));
  });
});
