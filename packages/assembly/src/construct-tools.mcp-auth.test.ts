import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { echoLoopbackTool, type LoopbackMcpServer, startLoopbackMcpServer } from '@toolbus/mcp/testing';
import type { Persona, Storage, User } from '@toolbus/storage';
import { constructTestTools, openAssemblyStorage } from './__fixtures__/construct-test-tools.ts';
import { echoWireTool } from './__fixtures__/mcp-wire-tools.ts';
import { offerMcpTools } from './__fixtures__/offered-mcp-tools.ts';
import { llmFacingOf } from './__fixtures__/test-tools.ts';
import { createStorageMcpTokenStore } from './create-storage-mcp-token-store.ts';

let storage: Storage;
let persona: Persona;
let user: User;

beforeEach(async () => {
  ({ storage, persona, user } = await openAssemblyStorage('Auth', 'auth@example.com'));
});

function assemble(options: { user?: User } = { user }) {
  return constructTestTools({
    persona,
    user: options.user,
    storage,
    requireMcpApproval: false,
    mcp: { oauthRedirectUrl: 'http://127.0.0.1:1/oauth/callback' },
  });
}

/** An echo MCP server for the tests of this describe that answers only requests with `Bearer <credential>`. */
function useEchoServerRequiring(credential: string): { readonly server: LoopbackMcpServer } {
  const started = {} as { server: LoopbackMcpServer };
  before(async () => {
    started.server = await startLoopbackMcpServer([echoLoopbackTool(echoWireTool)], {
      requiredAuthorization: `Bearer ${credential}`,
    });
  });
  after(async () => {
    await started.server.close();
  });
  return started;
}

describe('MCP credentials from storage', () => {
  // Braces in a stored key are part of the key, never a placeholder of the header template it is sent in.
  const apiKey = 'sk-stored-{api_key}-77';
  const echo = useEchoServerRequiring(apiKey);

  test('an API key stored encrypted reaches the server as a bearer header', async () => {
    await offerMcpTools(
      storage,
      persona.id,
      {
        name: 'keyed',
        url: echo.server.url,
        authType: 'api-key',
        apiKey,
        headers: { Authorization: 'Basic overridden-by-the-key' },
      },
      ['echo'],
    );
    const assembly = await assemble();
    try {
      assert.deepEqual(assembly.skipped, []);
      assert.match(await llmFacingOf(assembly.tools[0]!, { text: 'hi' }), /echo: \{"text":"hi"\}/);
      assert.ok(echo.server.requests.length > 0);
      assert.ok(
        echo.server.requests.every((request) => request.headers.authorization === `Bearer ${apiKey}`),
      );
    } finally {
      await assembly.close();
    }
  });

  test('a wrong stored key makes only that server unavailable', async () => {
    await storage.personas.addToolRow(persona.id, { kind: 'built-in', builtInId: 'WebSearchTool' });
    const wrongKey = {
      name: 'wrong-key',
      url: echo.server.url,
      authType: 'api-key',
      apiKey: 'sk-wrong',
    } as const;
    await offerMcpTools(storage, persona.id, wrongKey, ['echo']);
    const assembly = await assemble();
    assert.deepEqual(
      assembly.tools.map((tool) => tool.name),
      ['web_search'],
    );
    assert.equal(assembly.skipped.length, 1);
    assert.match(assembly.skipped[0]!.reason, /^mcp-(server-failed|auth-required)$/);
    assert.equal(assembly.skipped[0]!.message.includes('sk-wrong'), false);
  });
});

describe('per-user OAuth tokens from storage', () => {
  const accessToken = 'user-access-token-55';
  const echo = useEchoServerRequiring(accessToken);

  test("the signed-in user's stored token is used; another user without tokens must connect first", async () => {
    const serverId = await offerMcpTools(
      storage,
      persona.id,
      { name: 'oauth', url: echo.server.url, authType: 'oauth' },
      ['echo'],
    );
    await createStorageMcpTokenStore(storage).save(user.id, serverId, {
      tokens: { access_token: accessToken, token_type: 'Bearer' },
      tokensSavedAt: Date.now(),
    });
    const assembly = await assemble();
    try {
      assert.deepEqual(
        assembly.tools.map((tool) => tool.name),
        ['echo'],
      );
      assert.match(await llmFacingOf(assembly.tools[0]!), /^echo:/);
    } finally {
      await assembly.close();
    }

    // Tokens are per user: another user without tokens gets no tools, and the server is not even dialled.
    const stranger = await storage.users.create({ email: 'stranger@example.com' });
    const seen = echo.server.requests.length;
    const refused = await assemble({ user: stranger });
    assert.deepEqual(refused.tools, []);
    assert.equal(refused.skipped[0]?.reason, 'mcp-auth-required');
    assert.equal(echo.server.requests.length, seen, 'no request without tokens to send');
    await refused.close();
  });

  test('the token store keeps the record encrypted per user and server, and clears it', async () => {
    const stored = await storage.mcpServers.create({
      name: 'oauth-store',
      endpoint: { transport: 'streamable-http', url: echo.server.url },
      authType: 'oauth',
    });
    const tokenStore = createStorageMcpTokenStore(storage);
    await tokenStore.save(user.id, stored.id, { codeVerifier: 'verifier', pendingState: 'state-1' });
    assert.deepEqual(await tokenStore.load(user.id, stored.id), {
      codeVerifier: 'verifier',
      pendingState: 'state-1',
    });
    assert.deepEqual(
      await storage.userSecrets.get({ kind: 'mcpOAuth', ownerId: stored.id, userId: user.id }),
      {
        codeVerifier: 'verifier',
        pendingState: 'state-1',
      },
    );
    await tokenStore.clear(user.id, stored.id);
    assert.equal(await tokenStore.load(user.id, stored.id), undefined);
  });
});
