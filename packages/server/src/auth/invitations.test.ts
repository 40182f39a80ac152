import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type AdminApiServer, startAdminApiServer } from '../__fixtures__/admin-api-server.ts';

// Issue 28, finding 5: an organisation admin added any account by email, with no consent, and learnt which emails
// had accounts.
let api: AdminApiServer;
before(async () => {
  api = await startAdminApiServer();
});
after(() => api.close());

describe('organisation admins invite; they do not add accounts', () => {
  test('an invitation, accepted by the invitee; the answer does not tell whether the account exists', async () => {
    const acme = (await api.call('POST', '/v1/admin/organizations', api.adminKey, { name: 'Acme' })).body as {
      id: string;
    };
    const carol = await api.call('POST', `/v1/organizations/${acme.id}/members`, api.adminKey, {
      email: 'carol@acme.example',
      role: 'admin',
    });
    assert.equal(carol.status, 201, 'a deployment admin still adds directly');
    const carolKey = await api.keyIn((carol.body as { userId: string }).userId, acme.id);
    const victim = await api.storage.users.create({ email: 'victim@example.com' });
    const victimKey = await api.keyIn(victim.id, 'default');

    const existing = await api.call('POST', `/v1/organizations/${acme.id}/members`, carolKey, {
      email: 'Victim@Example.com',
    });
    const missing = await api.call('POST', `/v1/organizations/${acme.id}/members`, carolKey, {
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
      (await api.storage.organizations.members({ organizationId: acme.id, userId: victim.id }))[0],
      undefined,
      'not a member without consent',
    );
    assert.equal(
      await api.storage.users.get({ email: 'nobody@example.com' }),
      undefined,
      'no account was made',
    );

    // Someone else cannot see nor accept it.
    const { invitations: none } = (await api.call('GET', '/v1/invitations', carolKey)).body as {
      invitations: unknown[];
    };
    assert.deepEqual(none, []);
    const { invitations } = (await api.call('GET', '/v1/invitations', victimKey)).body as {
      invitations: { id: string; organizationId: string; organizationName: string }[];
    };
    assert.deepEqual(
      invitations.map((entry) => [entry.organizationId, entry.organizationName]),
      [[acme.id, 'Acme']],
    );
    const invitationId = invitations[0]?.id ?? '';
    assert.equal((await api.call('POST', `/v1/invitations/${invitationId}/accept`, carolKey)).status, 404);
    const accepted = await api.call('POST', `/v1/invitations/${invitationId}/accept`, victimKey);
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(
      (await api.storage.organizations.members({ organizationId: acme.id, userId: victim.id }))[0]?.role,
      'member',
    );
    assert.equal(
      (await api.call('POST', `/v1/invitations/${invitationId}/accept`, victimKey)).status,
      404,
      'once',
    );
  });

  test("an admin's key without the admin scope is no deployment admin: it cannot add members directly", async () => {
    const initech = (await api.call('POST', '/v1/admin/organizations', api.adminKey, { name: 'Initech' }))
      .body as {
      id: string;
    };
    const admin = (await api.storage.users.get({ email: 'admin@example.com' }))!;
    const chatOnly = await api.keyIn(admin.id, initech.id, ['chat']);
    const answer = await api.call('POST', `/v1/organizations/${initech.id}/members`, chatOnly, {
      email: 'mole@example.com',
      role: 'admin',
    });
    assert.ok(answer.status === 404 || answer.status === 403, answer.text);
    assert.equal(await api.storage.users.get({ email: 'mole@example.com' }), undefined);
  });
});
