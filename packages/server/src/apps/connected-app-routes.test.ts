import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Storage } from '@toolbus/storage';
import { callApi } from '../__fixtures__/api-calls.ts';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { createServer, type ToolbusServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';

let storage: Storage;
let databasePath: string;
let server: ToolbusServer;
let http: ListeningServer;
let adminKey: string;

before(async () => {
  ({ storage, path: databasePath } = await openTestStorage());
  server = await createServer({ storage, auth: 'api-keys', defaultModel: 'openai:unused' });
  http = await listen(server, { port: 0 });
  adminKey = (await server.access.bootstrapAdmin('admin@example.com'))?.key ?? '';
});
after(async () => {
  await http.close();
  await storage.close();
});

function call(method: string, path: string, key: string, body?: unknown) {
  return callApi({ baseUrl: http.url, method, path, key, body });
}

async function json<T>(response: Response, status: number): Promise<{ body: T; text: string }> {
  const text = await response.text();
  assert.equal(response.status, status, text);
  return { body: (text ? JSON.parse(text) : undefined) as T, text };
}

async function newUserKey(email: string): Promise<string> {
  const { body: user } = await json<{ id: string }>(
    await call('POST', '/v1/admin/users', adminKey, { email }),
    201,
  );
  const { body } = await json<{ key: string }>(
    await call('POST', `/v1/admin/users/${user.id}/keys`, adminKey, { name: 'test' }),
    201,
  );
  return body.key;
}

interface Summary {
  id: number;
  name: string;
  shared: boolean;
  headerNames: string[];
  organizationValueNames: string[];
  userValueNames: string[];
  actions: { name: string; policy: string }[];
}

describe('connected apps over HTTP', () => {
  test('add, list and remove: credentials are write-only, stored encrypted, and per user', async () => {
    const carol = await newUserKey('carol@example.com');
    const { body: created, text: createdText } = await json<Summary>(
      await call('POST', '/v1/apps', carol, {
        name: 'crm',
        urlPatterns: ['https://crm\\.example/.*'],
        headers: { Authorization: 'Bearer {{user.token}}', 'X-Org': '{{org.tenant}}' },
        organizationValues: { tenant: 'CAROL-TENANT-VALUE' },
        userValues: { token: 'CAROL-TOKEN-VALUE' },
        actions: [{ name: 'create_contact', method: 'post', pathPattern: '/contacts', policy: 'ASK' }],
        defaultPolicy: 'ALWAYS',
      }),
      201,
    );
    assert.equal(created.shared, false);
    assert.deepEqual(created.headerNames, ['Authorization', 'X-Org']);
    assert.deepEqual(created.organizationValueNames, ['tenant']);
    assert.deepEqual(created.userValueNames, ['token']);
    assert.deepEqual(
      created.actions.map((action) => `${action.name}=${action.policy}`),
      ['create_contact=ASK', 'other=ALWAYS'],
    );
    const { text: listed } = await json(await call('GET', '/v1/apps', carol), 200);
    for (const text of [createdText, listed]) {
      for (const secret of ['CAROL-TOKEN-VALUE', 'CAROL-TENANT-VALUE', 'Bearer {{user.token}}'])
        assert.ok(!text.includes(secret), `a response holds ${secret}`);
    }
    // At rest: neither the database file nor its write-ahead log holds the values in the clear.
    const raw = Buffer.concat([
      await readFile(databasePath),
      await readFile(`${databasePath}-wal`).catch(() => Buffer.alloc(0)),
    ]);
    assert.ok(raw.includes('crm'), 'the app itself is in the files read');
    assert.ok(!raw.includes('CAROL-TOKEN-VALUE') && !raw.includes('CAROL-TENANT-VALUE'));
    // The egress proxy reads them back decrypted, for exactly this user.
    const record = await storage.connectedApps.get(created.id);
    assert.equal(record?.organizationValues.tenant, 'CAROL-TENANT-VALUE');

    // Another user sees nothing of Carol's, cannot set values on it nor remove it.
    const dan = await newUserKey('dan@example.com');
    assert.deepEqual(
      (await json<{ apps: Summary[] }>(await call('GET', '/v1/apps', dan), 200)).body.apps,
      [],
    );
    await json(await call('PUT', `/v1/apps/${created.id}/values`, dan, { values: { token: 'x' } }), 404);
    await json(await call('DELETE', `/v1/apps/${created.id}`, dan), 404);

    // Carol replaces her value and removes the app.
    await json(await call('PUT', `/v1/apps/${created.id}/values`, carol, { values: { token: 'NEW' } }), 200);
    assert.ok(record);
    const [values] = await Promise.all([
      storage.userSecrets.get({
        kind: 'connectedAppValues',
        ownerId: created.id,
        userId: record.userId ?? '',
      }),
    ]);
    assert.deepEqual(values, { token: 'NEW' });
    await json(await call('DELETE', `/v1/apps/${created.id}`, carol), 204);
    assert.equal(await storage.connectedApps.get(created.id), undefined);
  });

  test("organisation apps are an administrator's: every user sees them, only admins add or remove them", async () => {
    const erin = await newUserKey('erin@example.com');
    const input = {
      name: 'weather',
      urlPatterns: ['https://weather\\.example/.*'],
      headers: { 'X-Key': '{{org.key}}' },
      organizationValues: { key: 'ORG-WEATHER-KEY' },
      shared: true,
    };
    const refused = await json<{ error: { field: string } }>(
      await call('POST', '/v1/apps', erin, input),
      403,
    );
    assert.equal(refused.body.error.field, 'body.shared');
    const { body: shared } = await json<Summary>(await call('POST', '/v1/apps', adminKey, input), 201);
    assert.equal(shared.shared, true);
    const seen = await json<{ apps: Summary[] }>(await call('GET', '/v1/apps', erin), 200);
    assert.deepEqual(
      seen.body.apps.map((app) => [app.name, app.shared]),
      [['weather', true]],
    );
    await json(await call('DELETE', `/v1/apps/${shared.id}`, erin), 403);
    await json(await call('DELETE', `/v1/apps/${shared.id}`, adminKey), 204);
  });

  test('malformed input is a 400 naming the field; the routes are in the OpenAPI document', async () => {
    const bad = await json<{ error: { field: string; message: string } }>(
      await call('POST', '/v1/apps', adminKey, {
        name: 'broken',
        urlPatterns: ['https://ok\\.example/.*', '(unclosed'],
        headers: { Authorization: 'x' },
      }),
      400,
    );
    assert.equal(bad.body.error.field, 'body.urlPatterns.1');
    assert.equal(
      bad.body.error.message,
      'body.urlPatterns.1: "(unclosed" is not a valid regular expression (Unterminated group).',
    );
    const noHeaders = await json<{ error: { field: string } }>(
      await call('POST', '/v1/apps', adminKey, {
        name: 'bare',
        urlPatterns: ['https://x\\.example/.*'],
        headers: {},
      }),
      400,
    );
    assert.equal(noHeaders.body.error.field, 'body.headers');
    const document = (await (await fetch(`${http.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    assert.equal(document.paths['/v1/apps']?.get?.operationId, 'listConnectedApps');
    assert.equal(document.paths['/v1/apps']?.post?.operationId, 'createConnectedApp');
    assert.equal(document.paths['/v1/apps/{appId}']?.delete?.operationId, 'deleteConnectedApp');
    assert.equal(document.paths['/v1/apps/{appId}/values']?.put?.operationId, 'setConnectedAppValues');
    assert.equal(document.paths['/v1/approvals/{approvalId}']?.post?.operationId, 'decideApproval');
  });
});
