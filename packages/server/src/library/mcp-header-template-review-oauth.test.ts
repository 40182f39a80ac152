// The per-user header template is filled wherever toolbus dials a stored server for someone, not only in chat: the
// admin's tool review (GET /v1/admin/mcp-servers/{id}/tools and the approval) and the OAuth connect flow. Real MCP
// servers on loopback refuse a request without the user's header, so a path that forgets the template gets a 401.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createGuardedFetch } from '@toolbus/core/node';
import { DEFAULT_ORGANIZATION_ID } from '@toolbus/storage';
import { whoamiTool } from '../../../mcp/src/__fixtures__/authorize-loopback-user.ts';
import {
  type LoopbackOAuthServers,
  startLoopbackOAuthServers,
} from '../../../mcp/src/__fixtures__/loopback-oauth-servers.ts';
import {
  type LoopbackMcpServer,
  startLoopbackMcpServer,
} from '../../../mcp/src/testing/loopback-mcp-server.ts';
import { type AdminApiServer, startAdminApiServer } from '../__fixtures__/admin-api-server.ts';

let oauthServers: LoopbackOAuthServers;
let keyed: LoopbackMcpServer;
let api: AdminApiServer;

before(async () => {
  oauthServers = await startLoopbackOAuthServers([whoamiTool], {
    requiredHeader: { name: 'X-Tenant-Key', value: 'tenant-of-carol' },
  });
  keyed = await startLoopbackMcpServer([whoamiTool], { requiredAuthorization: 'Bearer admin-key-7' });
  api = await startAdminApiServer({
    fetch: createGuardedFetch({ level: 'strict', allow: ['127.0.0.1'] }) as typeof fetch,
  });
});
after(async () => {
  await api.close();
  await keyed.close();
  await oauthServers.close();
});

/** A stored server (not checked on the way in: it refuses everyone until the template is filled). */
async function storedServer(input: {
  name: string;
  url: string;
  oauth: boolean;
  template: Record<string, string>;
}) {
  const { id } = await api.storage.mcpServers.create({
    name: input.name,
    endpoint: { transport: 'streamable-http', url: input.url },
    authType: input.oauth ? 'oauth' : 'none',
  });
  const set = await api.call('PUT', `/v1/admin/mcp-servers/${id}/header-template`, api.adminKey, {
    headers: input.template,
  });
  assert.equal(set.status, 200, set.text);
  return id;
}

describe('header templates outside chat', () => {
  test("the admin's tool review and approval reach a templated server with the admin's own values", async () => {
    const id = await storedServer({
      name: 'keyed',
      url: keyed.url,
      oauth: false,
      template: { Authorization: 'Bearer {api_key}' },
    });
    // No value yet: the server refuses, and the answer names the missing placeholder.
    const missing = await api.call('GET', `/v1/admin/mcp-servers/${id}/tools`, api.adminKey);
    assert.notEqual(missing.status, 200);
    assert.match(missing.text, /\{api_key\}/);

    const stored = await api.call('PUT', `/v1/mcp-servers/${id}/credentials`, api.adminKey, {
      values: { api_key: 'admin-key-7' },
    });
    assert.equal(stored.status, 200, stored.text);
    const before = keyed.requests.length;
    const review = await api.call('GET', `/v1/admin/mcp-servers/${id}/tools`, api.adminKey);
    assert.equal(review.status, 200, review.text);
    const tools = (review.body as { tools: { name: string; status: string }[] }).tools;
    assert.deepEqual(
      tools.map((tool) => [tool.name, tool.status]),
      [['whoami', 'unapproved']],
    );
    const approved = await api.call(
      'POST',
      `/v1/admin/mcp-servers/${id}/tools/whoami/approval`,
      api.adminKey,
    );
    assert.equal(approved.status, 200, approved.text);
    assert.equal((approved.body as { status: string }).status, 'approved');
    const sent = keyed.requests.slice(before);
    assert.ok(sent.length > 0);
    for (const request of sent) assert.equal(request.headers.authorization, 'Bearer admin-key-7');
  });

  test("the OAuth connect flow sends the user's template headers, so stored tokens count as connected", async () => {
    const id = await storedServer({
      name: 'tenant',
      url: oauthServers.mcpUrl,
      oauth: true,
      template: { 'X-Tenant-Key': '{tenant_key}' },
    });
    const carolId = (await api.storage.users.create({ email: 'carol@example.com' })).id;
    const carol = await api.keyIn(carolId, DEFAULT_ORGANIZATION_ID);
    const values = { values: { tenant_key: 'tenant-of-carol' } };
    assert.equal((await api.call('PUT', `/v1/mcp-servers/${id}/credentials`, carol, values)).status, 200);

    const start = await api.call('POST', `/v1/mcp-servers/${id}/connection`, carol, {});
    const started = start.body as { status: string; authorizationUrl: string };
    assert.equal(started.status, 'authorization_required', start.text);
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const authorize = await fetch(started.authorizationUrl, { redirect: 'manual' });
    const back = await fetch(authorize.headers.get('location') ?? '', {
      redirect: 'manual',
      headers: { cookie },
    });
    assert.equal(back.status, 302, await back.text());

    // With tokens stored, connecting again finds the server answering: the tenant key rode along with the token.
    const before = oauthServers.mcpRequests.length;
    const again = await api.call('POST', `/v1/mcp-servers/${id}/connection`, carol, {});
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, { status: 'connected' });
    const sent = oauthServers.mcpRequests.slice(before).filter((request) => request.path.startsWith('/mcp'));
    assert.ok(sent.length > 0);
    for (const request of sent) assert.equal(request.headers['x-tenant-key'], 'tenant-of-carol');
  });
});
