import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Storage } from '@toolbus/storage';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { createServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';

// Issue 28, finding 5: an organisation admin added any account by email, with no consent, and learnt which emails
// had accounts.
let storage: Storage;
let http: ListeningServer;
let adminKey: string;

before(async () => {
  ({ storage } = await openTestStorage());
  const server = await createServer({ storage, auth: 'api-keys', defaultModel: 'openai:unused' });
  http = await listen(server, { port: 0 });
  adminKey = (await server.access.bootstrapAdmin('admin@example.com'))?.key ?? '';
});
after(async () => {
  await http.close();
  await storage.close();
});

async function call(method: string, path: string, key: string, body?: unknown) {
  const response = await fetch(`${http.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, body: (text ? JSON.parse(text) : undefined) as never };
}

async function keyOf(userId: string, organizationId: string, scopes = ['chat']): Promise<string> {
  const made = await call('POST', `/v1/admin/users/${userId}/keys`, adminKey, {
    name: 'k',
    organizationId,
    scopes,
  });
  assert.equal(made.status, 201, made.text);
  return (made.body as { key: string }).key;
}

describe('organisation admins invite; they do not add accounts', () => {
  test('an invitation, accepted by the invitee; the answer does not tell whether the account exists', async () => {
    const acme = (await call('POST', '/v1/admin/organizations', adminKey, { name: 'Acme' })).body as {
      id: string;
    };
    const carol = await call('POST', `/v1/organizations/${acme.id}/members`, adminKey, {
      email: 'carol@acme.example',
      role: 'admin',
    });
    assert.equal(carol.status, 201, 'a deployment admin still adds directly');
    const carolKey = await keyOf((carol.body as { userId: string }).userId, acme.id);
    const victim = await storage.users.create({ email: 'victim@example.com' });
    const victimKey = await keyOf(victim.id, 'default');

    const existing = await call('POST', `/v1/organizations/${acme.id}/members`, carolKey, {
      email: 'Victim@Example.com',
    });
    const missing = await call('POST', `/v1/organizations/${acme.id}/members`, carolKey, {
      email: 'nobody@example.com',
    });
    assert.equal(existing.status, 202, existing.text);
    assert.equal(missing.status, 202, missing.text);
    assert.equal(
      existing.text.replace('victim', 'X'),
      missing.text.replace('nobody', 'X'),
      'the same answer',
    );
    assert.equal(
      await storage.organizations.getMember({ organizationId: acme.id, userId: victim.id }),
      undefined,
      'not a member without consent',
    );
    assert.equal(await storage.users.getByEmail('nobody@example.com'), undefined, 'no account was made');

    // Someone else cannot see nor accept it.
    const { invitations: none } = (await call('GET', '/v1/invitations', carolKey)).body as {
      invitations: unknown[];
    };
    assert.deepEqual(none, []);
    const { invitations } = (await call('GET', '/v1/invitations', victimKey)).body as {
      invitations: { id: string; organizationId: string; organizationName: string }[];
    };
    assert.deepEqual(
      invitations.map((entry) => [entry.organizationId, entry.organizationName]),
      [[acme.id, 'Acme']],
    );
    const invitationId = invitations[0]?.id ?? '';
    assert.equal((await call('POST', `/v1/invitations/${invitationId}/accept`, carolKey)).status, 404);
    const accepted = await call('POST', `/v1/invitations/${invitationId}/accept`, victimKey);
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(
      (await storage.organizations.getMember({ organizationId: acme.id, userId: victim.id }))?.role,
      'member',
    );
    assert.equal(
      (await call('POST', `/v1/invitations/${invitationId}/accept`, victimKey)).status,
      404,
      'once',
    );
  });

  test("an admin's key without the admin scope is no deployment admin: it cannot add members directly", async () => {
    const initech = (await call('POST', '/v1/admin/organizations', adminKey, { name: 'Initech' })).body as {
      id: string;
    };
    const admin = (await storage.users.getByEmail('admin@example.com'))!;
    const chatOnly = await keyOf(admin.id, initech.id, ['chat']);
    const answer = await call('POST', `/v1/organizations/${initech.id}/members`, chatOnly, {
      email: 'mole@example.com',
      role: 'admin',
    });
    assert.ok(answer.status === 404 || answer.status === 403, answer.text);
    assert.equal(await storage.users.getByEmail('mole@example.com'), undefined);
  });
});
