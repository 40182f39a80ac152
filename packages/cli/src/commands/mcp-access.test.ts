import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { offeredToSandboxes, openStorage, readMcpServerAccess } from '@toolbus/storage';
import { spawnCli } from '../__fixtures__/spawn-cli.ts';

// `toolbus mcp access`: the command line's way to say who may use an MCP server and whether sandboxed code is
// offered it (issue 31: without it, sandbox access could not be turned on from the CLI), against the real process.
describe('toolbus mcp access', () => {
  let home: string;
  let env: Record<string, string>;
  let serverId: string;
  let ana: string;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'toolbus-mcp-access-'));
    env = { TOOLBUS_HOME: home, TOOLBUS_MODEL: 'openai-compatible:http://127.0.0.1:9/v1#nothing' };
    const storage = await openStorage({ path: join(home, 'toolbus.db') });
    serverId = (
      await storage.mcpServers.create({
        name: 'wiki',
        endpoint: { transport: 'streamable-http', url: 'https://wiki.example/mcp' },
        authType: 'none',
      })
    ).id;
    ana = (await storage.users.create({ email: 'ana@example.com' })).id;
    await storage.close();
  });
  after(async () => {
    await rm(home, { recursive: true, force: true });
  });

  const stored = async () => {
    const storage = await openStorage({ path: join(home, 'toolbus.db') });
    try {
      return await readMcpServerAccess(storage.settings, serverId);
    } finally {
      await storage.close();
    }
  };

  test('shows, sets and replaces the access; the sandbox predicate follows', async () => {
    const shown = await spawnCli(['mcp', 'access', 'wiki'], env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /users: every user\n\s+sandboxes: not offered/);

    const set = await spawnCli(
      ['mcp', 'access', 'wiki', '--sandboxes', 'on', '--users', 'ana@example.com'],
      env,
    );
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /users: ana@example\.com\n\s+sandboxes: offered/);
    const access = await stored();
    assert.deepEqual(access, { userIds: [ana], availableToSandboxes: true });
    assert.equal(offeredToSandboxes(access, ana), true);
    assert.equal(offeredToSandboxes(access, 'someone-else'), false);

    // --sandboxes alone keeps the users; --all-users drops the list.
    await spawnCli(['mcp', 'access', 'wiki', '--sandboxes', 'off'], env);
    assert.deepEqual(await stored(), { userIds: [ana], availableToSandboxes: false });
    await spawnCli(['mcp', 'access', 'wiki', '--all-users'], env);
    assert.deepEqual(await stored(), { availableToSandboxes: false });
  });

  test('a wrong value, an unknown email or server is one line naming it (exit 2 or 1), and changes nothing', async () => {
    const before = await stored();
    const [badSwitch, unknownEmail, both, unknownServer] = await Promise.all([
      spawnCli(['mcp', 'access', 'wiki', '--sandboxes', 'yes'], env),
      spawnCli(['mcp', 'access', 'wiki', '--users', 'nobody@example.com'], env),
      spawnCli(['mcp', 'access', 'wiki', '--users', 'ana@example.com', '--all-users'], env),
      spawnCli(['mcp', 'access', 'nosuch', '--sandboxes', 'on'], env),
    ]);
    assert.equal(badSwitch.code, 2);
    assert.match(badSwitch.stderr, /--sandboxes takes on or off, not "yes"/);
    assert.equal(unknownEmail.code, 2);
    assert.match(unknownEmail.stderr, /no user has the email "nobody@example\.com"/);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--users and --all-users cannot go together/);
    assert.notEqual(unknownServer.code, 0);
    assert.match(unknownServer.stderr, /nosuch/);
    assert.deepEqual(await stored(), before);
  });
});
