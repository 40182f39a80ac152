import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ToolbusError } from '@toolbus/spec';
import { whoamiTool } from '../../mcp/src/__fixtures__/authorize-loopback-user.ts';
import {
  type LoopbackOAuthServers,
  startLoopbackOAuthServers,
} from '../../mcp/src/__fixtures__/loopback-oauth-servers.ts';
import { useCliHome, withHomeStorage } from './__fixtures__/cli-home.ts';
import { runMcpOAuthLogin } from './mcp-oauth-login.ts';

// A sign-in whose browser never comes back ends with one clear error naming the server and the command to retry,
// once the wait (`timeoutMs`) runs out; the loopback redirect server is closed either way.
describe('an MCP OAuth sign-in nobody completes', () => {
  const cli = useCliHome({ prefix: 'toolbus-oauth-timeout-' });
  let servers: LoopbackOAuthServers;
  before(async () => {
    servers = await startLoopbackOAuthServers([whoamiTool]);
  });
  after(() => servers.close());

  test('times out with mcp_oauth_timeout, naming `toolbus mcp login <name>`', async () => {
    await withHomeStorage(cli.home, async (storage) => {
      const user = await storage.users.create({ email: 'ana@example.com' });
      const server = await storage.mcpServers.create({
        name: 'slow',
        endpoint: { transport: 'streamable-http', url: servers.mcpUrl },
        authType: 'oauth',
      });
      const said: string[] = [];
      const login = runMcpOAuthLogin({
        server,
        storage,
        userId: user.id,
        fetch,
        // A "browser" that opens nothing: the redirect never arrives.
        env: { BROWSER: `${process.execPath} -e 0` },
        interactive: false,
        say: (line) => said.push(line),
        timeoutMs: 200,
      });
      await assert.rejects(login, (error: unknown) => {
        assert.ok(ToolbusError.isInstance(error), String(error));
        assert.equal(error.code, 'mcp_oauth_timeout');
        assert.equal(
          error.message,
          'No answer from the browser for "slow"; run `toolbus mcp login slow` again.',
        );
        return true;
      });
      assert.match(said.join('\n'), /Opening the browser to sign in to "slow"/);
    });
  });
});
