import assert from 'node:assert/strict';
import { test } from 'node:test';
import { omitUndefined } from '@toolbus/spec';
import { createInMemoryMcpTokenStore } from './mcp-token-store.ts';
import { StoreOAuthClientProvider } from './store-oauth-client-provider.ts';

async function providerWith(tokens: Record<string, unknown>, savedAt: number | undefined, now: number) {
  const store = createInMemoryMcpTokenStore();
  await store.save('u', 's', {
    tokens: tokens as never,
    ...omitUndefined({ tokensSavedAt: savedAt }),
  });
  return new StoreOAuthClientProvider({
    store,
    userId: 'u',
    serverId: 's',
    redirectUrl: 'http://127.0.0.1:1/cb',
    now: () => now,
  });
}

/** A provider of user `u` on server `s` over an empty store. */
function emptyProvider(options: { client?: { id: string; secret: string } } = {}) {
  const store = createInMemoryMcpTokenStore();
  const provider = new StoreOAuthClientProvider({
    store,
    userId: 'u',
    serverId: 's',
    redirectUrl: 'http://127.0.0.1:1/cb',
    ...options,
  });
  return { store, provider };
}

test('tokens(): an expired access token is withheld unless a refresh token can renew it', async () => {
  const hour = 3_600_000;
  const expired = { access_token: 'at', token_type: 'bearer', expires_in: 60 };
  assert.equal(await (await providerWith(expired, 0, hour)).tokens(), undefined);
  // Within the safety margin of its expiry counts as expired too.
  assert.equal(await (await providerWith(expired, 0, 45_000)).tokens(), undefined);
  assert.deepEqual(await (await providerWith(expired, 0, 1_000)).tokens(), expired);
  const renewable = { ...expired, refresh_token: 'rt' };
  assert.deepEqual(await (await providerWith(renewable, 0, hour)).tokens(), renewable);
  const noExpiry = { access_token: 'at', token_type: 'bearer' };
  assert.deepEqual(await (await providerWith(noExpiry, 0, hour)).tokens(), noExpiry);
});

test('tokens(): a token HTTP cannot carry in a header is withheld instead of failing every request', async () => {
  for (const tokens of [
    { access_token: 'at\r\nX-Evil: 1', token_type: 'bearer' },
    { access_token: 'at\u0100', token_type: 'bearer', refresh_token: 'rt' },
    { access_token: 'at', token_type: 'bear\u007fer' },
  ]) {
    assert.equal(await (await providerWith(tokens, 0, 1)).tokens(), undefined, JSON.stringify(tokens));
  }
});

test('a registration belongs to its authorization server: another one gets none, and registering there drops the old tokens', async () => {
  const { store, provider } = emptyProvider({ client: { id: 'pre-registered', secret: 'pre-secret' } });
  const oldAs = 'https://old-as.example';
  const newAs = 'https://new-as.example';
  await provider.saveClientInformation({ client_id: 'old-client', issuer: oldAs } as never);
  await provider.saveTokens({ access_token: 'old-at', token_type: 'bearer', issuer: oldAs } as never);
  assert.equal((await provider.clientInformation({ issuer: `${oldAs}/` }))?.client_id, 'old-client');
  // The pre-registered client was for the server it was first used with: it does not travel either.
  assert.equal(await provider.clientInformation({ issuer: newAs }), undefined);

  await provider.saveClientInformation({ client_id: 'new-client', issuer: newAs } as never);
  const record = await store.load('u', 's');
  assert.equal(record?.clientInformation?.client_id, 'new-client');
  assert.equal(record?.tokens, undefined, 'the old authorization server’s tokens are dropped');
  assert.equal((await provider.clientInformation({ issuer: newAs }))?.client_id, 'new-client');

  // Re-registering with the same server keeps its tokens.
  await provider.saveTokens({ access_token: 'new-at', token_type: 'bearer', issuer: newAs } as never);
  await provider.saveClientInformation({ client_id: 'new-client-2', issuer: newAs } as never);
  assert.equal((await store.load('u', 's'))?.tokens?.access_token, 'new-at');
});

test('a token the MCP server refuses makes the next authorization read the protected resource metadata again', async () => {
  const { provider } = emptyProvider();
  await provider.saveDiscoveryState({ authorizationServerUrl: 'https://old-as.example' });
  const refusing = provider.lockingRefreshes(async () => new Response('', { status: 401 }));
  // A 401 to a request without a token (the first contact) keeps the discovery: nothing was refused.
  await refusing('http://127.0.0.1:1/mcp', {
    method: 'POST',
    headers: { authorization: 'Basic Y2xpZW50OnNlY3JldA==' },
  });
  assert.deepEqual(await provider.discoveryState(), { authorizationServerUrl: 'https://old-as.example' });
  await refusing('http://127.0.0.1:1/mcp', { method: 'POST', headers: { authorization: 'Bearer old-at' } });
  assert.equal(await provider.discoveryState(), undefined);
});
