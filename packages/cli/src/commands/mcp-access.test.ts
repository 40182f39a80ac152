import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { offeredToSandboxes, readMcpServerAccess } from '@toolbus/storage';
import { storeHomeMcpServer, useCliHome, withHomeStorage } from '../__fixtures__/cli-home.ts';
import { spawnCli } from '../__fixtures__/spawn-cli.ts';

// `toolbus mcp access`: the command line's way to say who may use an MCP server and whether sandboxed code is
// offered it (issue 31: without it, sandbox access could not be turned on from the CLI), against the real process.
describe('toolbus mcp access', () => {
  const cli = useCliHome({ prefix: 'toolbus-mcp-access-' });
  let serverId: string;
  let ana: string;
  before(async () => {
    serverId = await storeHomeMcpServer(cli.home, { name: 'wiki', url: 'https://wiki.example/mcp' });
    ana = await withHomeStorage(
      cli.home,
      async (storage) => (await storage.users.create({ email: 'ana@example.com' })).id,
    );
  });

  const stored = () =>
    withHomeStorage(cli.home, (storage) => readMcpServerAccess(storage.settings, serverId));

  test('shows, sets and replaces the access; the sandbox predicate follows', async () => {
    const shown = await spawnCli(['mcp', 'access', 'wiki'], cli.env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /users: every user\n\s+sandboxes: not offered/);

    const set = await spawnCli(
      ['mcp', 'access', 'wiki', '--sandboxes', 'on', '--users', 'ana@example.com'],
      cli.env,
    );
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /users: ana@example\.com\n\s+sandboxes: offered/);
    const access = await stored();
    assert.deepEqual(access, { userIds: [ana], availableToSandboxes: true });
    assert.equal(offeredToSandboxes(access, ana), true);
    assert.equal(offeredToSandboxes(access, 'someone-else'), false);

    // --sandboxes alone keeps the users; --all-users drops the list.
    await spawnCli(['mcp', 'access', 'wiki', '--sandboxes', 'off'], cli.env);
    assert.deepEqual(await stored(), { userIds: [ana], availableToSandboxes: false });
    await spawnCli(['mcp', 'access', 'wiki', '--all-users'], cli.env);
    assert.deepEqual(await stored(), { availableToSandboxes: false });
  });

  test('a wrong value, an unknown email or server is one line naming it (exit 2 or 1), and changes nothing', async () => {
    const before = await stored();
    const [badSwitch, unknownEmail, both, unknownServer] = await Promise.all([
      spawnCli(['mcp', 'access', 'wiki', '--sandboxes', 'yes'], cli.env),
      spawnCli(['mcp', 'access', 'wiki', '--users', 'nobody@example.com'], cli.env),
      spawnCli(['mcp', 'access', 'wiki', '--users', 'ana@example.com', '--all-users'], cli.env),
      spawnCli(['mcp', 'access', 'nosuch', '--sandboxes', 'on'], cli.env),
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
