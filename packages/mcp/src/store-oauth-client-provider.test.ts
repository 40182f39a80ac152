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
