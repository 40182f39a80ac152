import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { createGuardedFetch } from '@toolbus/core/node';
import type { Storage } from '@toolbus/storage';
import { whoamiTool } from '../../../mcp/src/__fixtures__/authorize-loopback-user.ts';
import {
  type LoopbackOAuthServers,
  startLoopbackOAuthServers,
} from '../../../mcp/src/__fixtures__/loopback-oauth-servers.ts';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { createServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';

// Issue 28, finding 6: behind a TLS proxy the session cookie had no Secure flag, and the OAuth redirect_uri came
// from the request's Host header.
let oauthServers: LoopbackOAuthServers;
let storage: Storage;
let proxied: ListeningServer;
let plain: ListeningServer;
let proxiedKey: string;
let plainKey: string;
let serverId: string;

before(async () => {
  oauthServers = await startLoopbackOAuthServers([whoamiTool]);
  ({ storage } = await openTestStorage());
  const options = {
    storage,
    auth: 'api-keys',
    defaultModel: 'openai:unused',
    fetch: createGuardedFetch({ level: 'strict', allow: ['127.0.0.1'] }) as typeof fetch,
  } as const;
  // Two replicas on one storage: one told its public origin (as behind a TLS proxy), one not.
  const behindProxy = await createServer({ ...options, publicOrigin: 'https://toolbus.example.com/' });
  proxied = await listen(behindProxy, { port: 0 });
  plain = await listen(await createServer(options), { port: 0 });
  proxiedKey = (await behindProxy.access.bootstrapAdmin('admin@example.com'))?.key ?? '';
  plainKey = proxiedKey;
  serverId = (
    await storage.mcpServers.create({
      name: 'protected',
      endpoint: { transport: 'streamable-http', url: oauthServers.mcpUrl },
      authType: 'oauth',
    })
  ).id;
});
after(async () => {
  await proxied.close();
  await plain.close();
  await storage.close();
  await oauthServers.close();
});

/** A request with a Host header of the caller's choosing (fetch does not let one set it). */
function send(
  server: ListeningServer,
  method: string,
  path: string,
  options: { key: string; host?: string; body?: unknown },
): Promise<{ status: number; setCookie: string[]; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, server.url);
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const outgoing = request(url, {
      method,
      headers: {
        authorization: `Bearer ${options.key}`,
        host: options.host ?? url.host,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
    });
    outgoing.once('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.once('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          setCookie: response.headers['set-cookie'] ?? [],
          body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
        }),
      );
    });
    outgoing.once('error', reject);
    outgoing.end(payload);
  });
}

describe('the public origin (toolbus serve --public-origin)', () => {
  test('https public origin: cookies are Secure although the proxied request is plain http', async () => {
    const session = await send(proxied, 'POST', '/v1/session', {
      key: proxiedKey,
      host: 'toolbus.example.com',
    });
    assert.equal(session.status, 201);
    assert.match(session.setCookie[0] ?? '', /^toolbus_session=.*; Secure$/);
    const plainSession = await send(plain, 'POST', '/v1/session', { key: plainKey });
    assert.doesNotMatch(plainSession.setCookie[0] ?? '', /Secure/, 'plain loopback http: no Secure');
  });

  test('redirect URIs come from the public origin only, never from a Host header', async () => {
    const started = await send(proxied, 'POST', `/v1/mcp-servers/${serverId}/connection`, {
      key: proxiedKey,
      host: 'evil.example',
      body: {},
    });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const authorization = new URL(started.body.authorizationUrl as string);
    assert.equal(
      authorization.searchParams.get('redirect_uri'),
      'https://toolbus.example.com/v1/mcp-oauth/callback',
    );
    assert.match(started.setCookie[0] ?? '', /^toolbus_mcp_oauth=.*; Secure$/);
  });

  test('without a public origin, an OAuth flow by a non-loopback name is refused, saying why', async () => {
    for (const host of ['evil.example', 'toolbus.example.com:443', '10.0.0.5:8787']) {
      const refused = await send(plain, 'POST', `/v1/mcp-servers/${serverId}/connection`, {
        key: plainKey,
        host,
        body: {},
      });
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.match(JSON.stringify(refused.body), /--public-origin/);
    }
    const local = await send(plain, 'POST', `/v1/mcp-servers/${serverId}/connection`, {
      key: plainKey,
      body: {},
    });
    assert.equal(local.status, 200, 'a loopback name still works');
  });

  test('a public origin that is not an origin is refused at start', async () => {
    for (const publicOrigin of [
      'toolbus.example.com',
      'https://toolbus.example.com/app',
      'ftp://x.example',
    ]) {
      await assert.rejects(
        createServer({ storage, auth: 'api-keys', defaultModel: 'openai:unused', publicOrigin }),
        /publicOrigin/,
      );
    }
  });
});
