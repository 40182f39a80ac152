import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { omitUndefined } from '@toolbus/spec';
import { type AdminApiServer, startAdminApiServer } from '../__fixtures__/admin-api-server.ts';
import { storageEgressCatalogue } from '../egress/sandbox-egress.ts';

// Issue 28, finding 4: an org-A shared app was listed for org-B users, and by the code org B's sandbox got its
// credential.
let api: AdminApiServer;
before(async () => {
  api = await startAdminApiServer();
});
after(() => api.close());

describe('connected apps belong to an organisation', () => {
  test('an org-A shared app is neither listed, nor changeable, nor injected in org B', async () => {
    const orgA = await api.organization('A');
    const orgB = await api.organization('B');
    const admin = (await api.storage.users.get({ email: 'admin@example.com' }))!;
    const alice = await api.member(orgA, 'alice@a.example');
    const bob = await api.member(orgB, 'bob@b.example');
    const adminInA = await api.keyIn(admin.id, orgA, ['chat', 'admin']);
    const adminInB = await api.keyIn(admin.id, orgB, ['chat', 'admin']);
    const aliceKey = await api.keyIn(alice, orgA, ['chat']);
    const bobKey = await api.keyIn(bob, orgB, ['chat']);

    const app = await api.created<{ id: number }>('POST', '/v1/apps', adminInA, {
      name: 'crm',
      urlPatterns: ['^https://crm\\.a\\.example/'],
      headers: { Authorization: 'Bearer {{org.token}}' },
      organizationValues: { token: 'ORG-A-SECRET' },
      shared: true,
    });
    const listed = async (key: string) =>
      ((await api.call('GET', '/v1/apps', key)).body as { apps: { id: number }[] }).apps.map(
        (entry) => entry.id,
      );
    assert.deepEqual(await listed(aliceKey), [app.id], 'org A sees its shared app');
    assert.deepEqual(await listed(bobKey), [], 'org B does not');
    assert.deepEqual(await listed(adminInB), [], 'nor does a deployment admin acting in org B');
    assert.equal(
      (await api.call('PUT', `/v1/apps/${app.id}/values`, bobKey, { values: { token: 'x' } })).status,
      404,
    );
    assert.equal((await api.call('DELETE', `/v1/apps/${app.id}`, adminInB)).status, 404);
    // The same name is free in org B: names are unique per organisation.
    await api.created('POST', '/v1/apps', adminInB, {
      name: 'crm',
      urlPatterns: ['^https://crm\\.b\\.example/'],
      headers: { Authorization: 'Bearer B' },
      shared: true,
    });

    // The egress catalogue of a sandbox run offers only the run's organisation's apps.
    const catalogue = storageEgressCatalogue(api.storage);
    const names = async (userId: string, organizationId: string | undefined) =>
      (
        await catalogue.connectedApps({
          sandboxId: 'run',
          userId,
          ...omitUndefined({ organizationId }),
        })
      ).map((entry) => `${entry.id}`);
    assert.deepEqual(await names(alice, orgA), [`${app.id}`]);
    assert.ok(!(await names(bob, orgB)).includes(`${app.id}`), "org B's run never gets org A's app");
    assert.ok(
      !(await names(bob, undefined)).includes(`${app.id}`),
      'a run naming no organisation is not given every organisation',
    );
  });
});
