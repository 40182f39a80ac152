import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { omitUndefined } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { createServer, type ToolbusServer } from '../create-server.ts';
import { storageEgressCatalogue } from '../egress/sandbox-egress.ts';
import { type ListeningServer, listen } from '../listen.ts';

// Issue 28, finding 4: an org-A shared app was listed for org-B users, and by the code org B's sandbox got its
// credential.
let storage: Storage;
let server: ToolbusServer;
let http: ListeningServer;
let adminKey: string;

before(async () => {
  ({ storage } = await openTestStorage());
  server = await createServer({ storage, auth: 'api-keys', defaultModel: 'openai:unused' });
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

async function created<T>(method: string, path: string, key: string, body: unknown): Promise<T> {
  const answer = await call(method, path, key, body);
  assert.equal(answer.status, 201, answer.text);
  return answer.body as T;
}

/** A key of `userId` bound to `organizationId`, made by the deployment admin. */
async function keyIn(userId: string, organizationId: string, scopes: string[]): Promise<string> {
  return (
    await created<{ key: string }>('POST', `/v1/admin/users/${userId}/keys`, adminKey, {
      name: 'k',
      organizationId,
      scopes,
    })
  ).key;
}

describe('connected apps belong to an organisation', () => {
  test('an org-A shared app is neither listed, nor changeable, nor injected in org B', async () => {
    const orgA = await created<{ id: string }>('POST', '/v1/admin/organizations', adminKey, { name: 'A' });
    const orgB = await created<{ id: string }>('POST', '/v1/admin/organizations', adminKey, { name: 'B' });
    const admin = (await storage.users.getByEmail('admin@example.com'))!;
    const alice = await created<{ userId: string }>(
      'POST',
      `/v1/organizations/${orgA.id}/members`,
      adminKey,
      {
        email: 'alice@a.example',
      },
    );
    const bob = await created<{ userId: string }>('POST', `/v1/organizations/${orgB.id}/members`, adminKey, {
      email: 'bob@b.example',
    });
    const adminInA = await keyIn(admin.id, orgA.id, ['chat', 'admin']);
    const adminInB = await keyIn(admin.id, orgB.id, ['chat', 'admin']);
    const aliceKey = await keyIn(alice.userId, orgA.id, ['chat']);
    const bobKey = await keyIn(bob.userId, orgB.id, ['chat']);

    const app = await created<{ id: number }>('POST', '/v1/apps', adminInA, {
      name: 'crm',
      urlPatterns: ['^https://crm\\.a\\.example/'],
      headers: { Authorization: 'Bearer {{org.token}}' },
      organizationValues: { token: 'ORG-A-SECRET' },
      shared: true,
    });
    const listed = async (key: string) =>
      ((await call('GET', '/v1/apps', key)).body as { apps: { id: number }[] }).apps.map((entry) => entry.id);
    assert.deepEqual(await listed(aliceKey), [app.id], 'org A sees its shared app');
    assert.deepEqual(await listed(bobKey), [], 'org B does not');
    assert.deepEqual(await listed(adminInB), [], 'nor does a deployment admin acting in org B');
    assert.equal(
      (await call('PUT', `/v1/apps/${app.id}/values`, bobKey, { values: { token: 'x' } })).status,
      404,
    );
    assert.equal((await call('DELETE', `/v1/apps/${app.id}`, adminInB)).status, 404);
    // The same name is free in org B: names are unique per organisation.
    await created('POST', '/v1/apps', adminInB, {
      name: 'crm',
      urlPatterns: ['^https://crm\\.b\\.example/'],
      headers: { Authorization: 'Bearer B' },
      shared: true,
    });

    // The egress catalogue of a sandbox run offers only the run's organisation's apps.
    const catalogue = storageEgressCatalogue(storage);
    const names = async (userId: string, organizationId: string | undefined) =>
      (
        await catalogue.connectedApps({
          sandboxId: 'run',
          userId,
          ...omitUndefined({ organizationId }),
        })
      ).map((entry) => `${entry.id}`);
    assert.deepEqual(await names(alice.userId, orgA.id), [`${app.id}`]);
    assert.ok(
      !(await names(bob.userId, orgB.id)).includes(`${app.id}`),
      "org B's run never gets org A's app",
    );
    assert.ok(
      !(await names(bob.userId, undefined)).includes(`${app.id}`),
      'a run naming no organisation is not given every organisation',
    );
  });
});
