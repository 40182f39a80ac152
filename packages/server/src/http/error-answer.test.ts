import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GuardedFetchError } from '@toolbus/core';
import { ToolbusError } from '@toolbus/spec';
import { type LocalApiServer, startLocalApiServer } from '../__fixtures__/admin-api-server.ts';
import { toErrorAnswer } from './error-answer.ts';

// Issue 28, finding 7: refusals by a rule came back as 500 internal_error while the log said why.
let api: LocalApiServer;

// Local auth and the default (strict) guarded fetch: loopback and private addresses are refused.
before(async () => {
  api = await startLocalApiServer();
});
after(() => api.close());

const call = (method: string, path: string, body?: unknown) =>
  api.call<{ error: { code: string; message: string } }>(method, path, body);

async function addServer(endpoint: unknown): Promise<string> {
  const created = await call('POST', '/v1/admin/mcp-servers', {
    name: `s${Math.random()}`,
    endpoint,
    authType: 'none',
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return (created.body as unknown as { id: string }).id;
}

describe('refusals are 4xx answers naming the rule', () => {
  test('listing the tools of an MCP server at a blocked address is 422 ssrf_blocked, not 500', async () => {
    const id = await addServer({ transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp' });
    const { status, body } = await call('GET', `/v1/admin/mcp-servers/${id}/tools`);
    assert.equal(status, 422, JSON.stringify(body));
    assert.equal(body.error.code, 'ssrf_blocked');
    assert.match(body.error.message, /127\.0\.0\.1/);
  });

  test('a stdio MCP server that fails to start is a 4xx saying so, not 500', async () => {
    const id = await addServer({
      transport: 'stdio',
      command: '/nonexistent/toolbus-no-such-command',
      args: [],
    });
    const { status, body } = await call('GET', `/v1/admin/mcp-servers/${id}/tools`);
    assert.ok(status >= 400 && status < 500, `${status} ${JSON.stringify(body)}`);
    assert.equal(body.error.code, 'mcp_connection_failed');
    assert.match(body.error.message, /start|connect/i);
  });

  test('an error that is no refusal stays a 500 that shows nothing of it', () => {
    assert.equal(toErrorAnswer(new Error('secret detail')).status, 500);
    assert.equal(toErrorAnswer(new ToolbusError({ code: 'some_new_code', message: 'x' })).status, 500);
    const blocked = toErrorAnswer(
      new GuardedFetchError({
        code: 'ssrf_blocked',
        message: 'Refused host 10.0.0.1 (private).',
        host: '10.0.0.1',
      }),
    );
    assert.deepEqual([blocked.status, blocked.code], [422, 'ssrf_blocked']);
  });
});
