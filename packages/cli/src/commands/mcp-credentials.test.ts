import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { echoLoopbackTool, type LoopbackMcpServer, startLoopbackMcpServer } from '@toolbus/mcp/testing';
import { openStorage, readMcpHeaderTemplate } from '@toolbus/storage';
import { spawnCli } from '../__fixtures__/spawn-cli.ts';
import { LOCAL_USER_EMAIL } from '../open-workspace.ts';

// `toolbus mcp template` and `toolbus mcp credentials` against the real process: the admin's header template with
// the API's checks, and the local user's own values read from variables, stored encrypted, never printed.
describe('toolbus mcp template / credentials', () => {
  let home: string;
  let env: Record<string, string>;
  let serverId: string;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'toolbus-mcp-credentials-'));
    env = { TOOLBUS_HOME: home, TOOLBUS_MODEL: 'openai-compatible:http://127.0.0.1:9/v1#nothing' };
    const storage = await openStorage({ path: join(home, 'toolbus.db') });
    serverId = (
      await storage.mcpServers.create({
        name: 'tracker',
        endpoint: { transport: 'streamable-http', url: 'https://tracker.example/mcp' },
        authType: 'none',
      })
    ).id;
    await storage.close();
  });
  after(async () => {
    await rm(home, { recursive: true, force: true });
  });

  const read = async () => {
    const storage = await openStorage({ path: join(home, 'toolbus.db') });
    try {
      const user = await storage.users.getByEmail(LOCAL_USER_EMAIL);
      return {
        template: await readMcpHeaderTemplate(storage.settings, serverId),
        values:
          user === undefined
            ? undefined
            : await storage.mcpUserCredentials.get({ serverId, userId: user.id }),
      };
    } finally {
      await storage.close();
    }
  };

  test('sets the template (dropping a deny-listed header, naming it) and refuses a fixed value', async () => {
    const set = await spawnCli(
      ['mcp', 'template', 'tracker', '--set', 'Authorization=Bearer {api_key}', '--set', 'Host={api_key}'],
      env,
    );
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stderr, /Dropped header "Host" from the template \(denylisted\)/);
    assert.match(set.stdout, /Authorization: Bearer \{api_key\}\n\s+each user fills: \{api_key\}/);
    assert.deepEqual((await read()).template, { Authorization: 'Bearer {api_key}' });
    const fixed = await spawnCli(['mcp', 'template', 'tracker', '--set', 'X-Key=sk-live'], env);
    assert.notEqual(fixed.code, 0);
    assert.match(fixed.stderr, /"X-Key" has no \{placeholder\}/);
  });

  test("stores the user's value from a variable, encrypted and never printed; refuses CR/LF", async () => {
    const stored = await spawnCli(['mcp', 'credentials', 'tracker', '--value', 'api_key=TRACKER_KEY'], {
      ...env,
      TRACKER_KEY: 'tk-secret-31',
    });
    assert.equal(stored.code, 0, stored.stderr);
    assert.match(stored.stdout, /\{api_key\}: set/);
    assert.doesNotMatch(stored.stdout + stored.stderr, /tk-secret-31/);
    assert.deepEqual((await read()).values, { api_key: 'tk-secret-31' });

    const injected = await spawnCli(['mcp', 'credentials', 'tracker', '--value', 'api_key=BAD'], {
      ...env,
      BAD: 'x\r\nX-Admin: 1',
    });
    assert.notEqual(injected.code, 0);
    assert.match(injected.stderr, /value for \{api_key\} contains a line break \(CR\/LF\)/);
    assert.deepEqual((await read()).values, { api_key: 'tk-secret-31' }, 'nothing lost');

    const cleared = await spawnCli(['mcp', 'credentials', 'tracker', '--clear'], env);
    assert.match(cleared.stdout, /\{api_key\}: not set/);
    assert.equal((await read()).values, undefined);
  });

  test("the local user's values reach a real MCP server: tools listed only once they are stored", async () => {
    const mcp: LoopbackMcpServer = await startLoopbackMcpServer(
      [echoLoopbackTool({ name: 'find_ticket', inputSchema: { type: 'object', properties: {} } })],
      { requiredAuthorization: 'Bearer tk-live-5' },
    );
    try {
      assert.equal((await spawnCli(['config', 'set', 'allowHosts', '127.0.0.1'], env)).code, 0);
      const storage = await openStorage({ path: join(home, 'toolbus.db') });
      await storage.mcpServers.create({
        name: 'desk',
        endpoint: { transport: 'streamable-http', url: mcp.url },
        authType: 'none',
      });
      await storage.close();
      await spawnCli(['mcp', 'template', 'desk', '--set', 'Authorization=Bearer {api_key}'], env);
      const refused = await spawnCli(['mcp', 'tools', 'desk'], env);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /no stored value for \{api_key\}/);
      await spawnCli(['mcp', 'credentials', 'desk', '--value', 'api_key=DESK_KEY'], {
        ...env,
        DESK_KEY: 'tk-live-5',
      });
      const listed = await spawnCli(['mcp', 'tools', 'desk'], env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /find_ticket/);
    } finally {
      await mcp.close();
    }
  });
});
