// `/v1/me` reports the role the server grants, not the stored row's: in local mode the one user acts as an admin,
// so the web app must be told so (it shows admin pages by this answer).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lookupThenAnswer, startScriptedTestServer } from '../__fixtures__/test-server.ts';

test('local mode: /v1/me says admin (as the admin API answers), with every scope', async () => {
  const server = await startScriptedTestServer({
    handler: lookupThenAnswer(),
    toolFactories: () => new Map(),
  });
  try {
    const me = (await (await fetch(`${server.http.url}/v1/me`)).json()) as { role: string; scopes: string[] };
    assert.equal(me.role, 'admin');
    assert.ok(me.scopes.includes('admin'));
    // The stored row is a plain user: what /v1/me reports is the grant, and the admin API agrees with it.
    const stored = await server.storage.users.get({ email: 'local@toolbus.invalid' });
    assert.equal(stored?.role, 'user');
    assert.equal((await fetch(`${server.http.url}/v1/admin/personas`)).status, 200);
  } finally {
    await server.close();
  }
});
