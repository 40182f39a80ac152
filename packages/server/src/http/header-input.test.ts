import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Storage } from '@toolbus/storage';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { createServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';

// Issue 28, finding 8: CR/LF in connected-app and MCP header templates was accepted (201) and refused only when used.
let storage: Storage;
let http: ListeningServer;

before(async () => {
  ({ storage } = await openTestStorage());
  http = await listen(await createServer({ storage, auth: 'local', defaultModel: 'openai:unused' }), {
    port: 0,
  });
});
after(async () => {
  await http.close();
  await storage.close();
});

async function send(method: string, path: string, body: unknown) {
  const response = await fetch(`${http.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { error?: { field?: string } } };
}

const app = (patch: Record<string, unknown>) => ({
  name: `app-${Math.random()}`,
  urlPatterns: ['^https://api\\.example/'],
  headers: { Authorization: 'Bearer {{user.token}}' },
  ...patch,
});

describe('header input is refused at the door, naming the field', () => {
  test('connected apps: templates and the values filled into them', async () => {
    for (const [patch, field] of [
      [{ headers: { Authorization: 'Bearer x\r\nX-Injected: 1' } }, 'body.headers.Authorization'],
      [{ headers: { 'X-Key': 'a\nb' } }, 'body.headers.X-Key'],
      [{ headers: { 'X-Key': 'a\u0000b' } }, 'body.headers.X-Key'],
      [{ headers: { 'X Bad': 'v' } }, 'body.headers'],
      [{ organizationValues: { token: 'x\r\nSet-Cookie: a=b' } }, 'body.organizationValues.token'],
      [{ userValues: { token: 'x\rY' } }, 'body.userValues.token'],
    ] as const) {
      const answer = await send('POST', '/v1/apps', app(patch));
      assert.equal(answer.status, 400, JSON.stringify([patch, answer.body]));
      assert.equal(answer.body.error?.field, field);
    }
    assert.deepEqual(await storage.connectedApps.list(), [], 'nothing was stored');
    const created = await send(
      'POST',
      '/v1/apps',
      app({ headers: { Authorization: 'Bearer\t{{user.token}} é' } }),
    );
    assert.equal(created.status, 201, 'tabs and non-ASCII stay allowed');
    const id = (created.body as unknown as { id: number }).id;
    const values = await send('PUT', `/v1/apps/${id}/values`, { values: { token: 'a\r\nb' } });
    assert.equal(values.status, 400);
    assert.equal(values.body.error?.field, 'body.values.token');
  });

  test('MCP servers: header templates and the API key', async () => {
    const server = (patch: Record<string, unknown>) => ({
      name: `mcp-${Math.random()}`,
      endpoint: { transport: 'streamable-http', url: 'https://mcp.example/mcp' },
      authType: 'headers',
      ...patch,
    });
    for (const [patch, field] of [
      [{ headers: { Authorization: 'Bearer x\r\nX-Injected: 1' } }, 'body.headers.Authorization'],
      [{ authType: 'api-key', apiKey: 'k\n' }, 'body.apiKey'],
    ] as const) {
      const answer = await send('POST', '/v1/admin/mcp-servers', server(patch));
      assert.equal(answer.status, 400, JSON.stringify([patch, answer.body]));
      assert.equal(answer.body.error?.field, field);
    }
    assert.deepEqual(await storage.mcpServers.list(), [], 'nothing was stored');
  });
});
