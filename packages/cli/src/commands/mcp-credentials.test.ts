import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { echoLoopbackTool, type LoopbackMcpServer, startLoopbackMcpServer } from '@toolbus/mcp/testing';
import { readMcpHeaderTemplate } from '@toolbus/storage';
import { setCliConfig, storeHomeMcpServer, useCliHome, withHomeStorage } from '../__fixtures__/cli-home.ts';
import { spawnCli } from '../__fixtures__/spawn-cli.ts';
import { LOCAL_USER_EMAIL } from '../open-workspace.ts';

// `toolbus mcp template` and `toolbus mcp credentials` against the real process: the admin's header template with
// the API's checks, and the local user's own values read from variables, stored encrypted, never printed.
describe('toolbus mcp template / credentials', () => {
  const cli = useCliHome({ prefix: 'toolbus-mcp-credentials-' });
  let serverId: string;
  before(async () => {
    serverId = await storeHomeMcpServer(cli.home, { name: 'tracker', url: 'https://tracker.example/mcp' });
  });

  const read = () =>
    withHomeStorage(cli.home, async (storage) => {
      const user = await storage.users.get({ email: LOCAL_USER_EMAIL });
      return {
        template: await readMcpHeaderTemplate(storage.settings, serverId),
        values:
          user === undefined
            ? undefined
            : await storage.userSecrets.get({ kind: 'mcpHeaderValues', ownerId: serverId, userId: user.id }),
      };
    });

  test('sets the template (dropping a deny-listed header, naming it) and refuses a fixed value', async () => {
    const set = await spawnCli(
      ['mcp', 'template', 'tracker', '--set', 'Authorization=Bearer {api_key}', '--set', 'Host={api_key}'],
      cli.env,
    );
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stderr, /Dropped header "Host" from the template \(denylisted\)/);
    assert.match(set.stdout, /Authorization: Bearer \{api_key\}\n\s+each user fills: \{api_key\}/);
    assert.deepEqual((await read()).template, { Authorization: 'Bearer {api_key}' });
    const fixed = await spawnCli(['mcp', 'template', 'tracker', '--set', 'X-Key=sk-live'], cli.env);
    assert.notEqual(fixed.code, 0);
    assert.match(fixed.stderr, /"X-Key" has no \{placeholder\}/);
  });

  test("stores the user's value from a variable, encrypted and never printed; refuses CR/LF", async () => {
    const stored = await spawnCli(['mcp', 'credentials', 'tracker', '--value', 'api_key=TRACKER_KEY'], {
      ...cli.env,
      TRACKER_KEY: 'tk-secret-31',
    });
    assert.equal(stored.code, 0, stored.stderr);
    assert.match(stored.stdout, /\{api_key\}: set/);
    assert.doesNotMatch(stored.stdout + stored.stderr, /tk-secret-31/);
    assert.deepEqual((await read()).values, { api_key: 'tk-secret-31' });

    const injected = await spawnCli(['mcp', 'credentials', 'tracker', '--value', 'api_key=BAD'], {
      ...cli.env,
      BAD: 'x\r\nX-Admin: 1',
    });
    assert.notEqual(injected.code, 0);
    assert.match(injected.stderr, /value for \{api_key\} contains a line break \(CR\/LF\)/);
    assert.deepEqual((await read()).values, { api_key: 'tk-secret-31' }, 'nothing lost');

    const cleared = await spawnCli(['mcp', 'credentials', 'tracker', '--clear'], cli.env);
    assert.match(cleared.stdout, /\{api_key\}: not set/);
    assert.equal((await read()).values, undefined);
  });

  test("the local user's values reach a real MCP server: tools listed only once they are stored", async () => {
    const mcp: LoopbackMcpServer = await startLoopbackMcpServer(
      [echoLoopbackTool({ name: 'find_ticket', inputSchema: { type: 'object', properties: {} } })],
      { requiredAuthorization: 'Bearer tk-live-5' },
    );
    try {
      await setCliConfig(cli.env, [['allowHosts', '127.0.0.1']]);
      await storeHomeMcpServer(cli.home, { name: 'desk', url: mcp.url });
      await spawnCli(['mcp', 'template', 'desk', '--set', 'Authorization=Bearer {api_key}'], cli.env);
      const refused = await spawnCli(['mcp', 'tools', 'desk'], cli.env);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /no stored value for \{api_key\}/);
      await spawnCli(['mcp', 'credentials', 'desk', '--value', 'api_key=DESK_KEY'], {
        ...cli.env,
        DESK_KEY: 'tk-live-5',
      });
      const listed = await spawnCli(['mcp', 'tools', 'desk'], cli.env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /find_ticket/);
    } finally {
      await mcp.close();
    }
  });
});
