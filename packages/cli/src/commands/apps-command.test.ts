import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.ts';

let home: string;

/** Runs the CLI in this process in `home`, with `env` besides the home's variables. */
const run = (args: readonly string[], env: Record<string, string> = {}) =>
  runCliInProcess(args, { env: { TOOLBUS_HOME: home, HOME: home, ...env }, cwd: home });

before(async () => {
  home = await mkdtemp(join(tmpdir(), 'toolbus-apps-'));
});
after(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('toolbus apps', () => {
  it('adds, lists (names only, never values) and removes connected apps', async () => {
    const added = await run(
      [
        'apps',
        'add',
        'github',
        '--url',
        'https://api\\.github\\.com/.*',
        '--header',
        'Authorization: Bearer {{user.token}}',
        '--user-value-env',
        'token=GITHUB_TOKEN',
        '--value',
        'org=ORG-VALUE-77',
        '--action',
        'read:GET:/repos/.*:ALWAYS',
      ],
      { GITHUB_TOKEN: 'ghp_CLI_SECRET_TOKEN_123' },
    );
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /Connected github/);
    const listed = await run(['apps', 'list']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /github \(#\d+, yours\)/);
    assert.match(listed.stdout, /headers: Authorization/);
    assert.match(listed.stdout, /values: {2}org\.org, user\.token/);
    assert.match(listed.stdout, /actions: read=ALWAYS, other=ASK/);
    assert.ok(!listed.stdout.includes('ghp_CLI_SECRET_TOKEN_123'));
    assert.ok(!listed.stdout.includes('ORG-VALUE-77'));
    const database = await readFile(join(home, 'toolbus.db')).catch(() => Buffer.alloc(0));
    assert.ok(!database.toString('latin1').includes('ghp_CLI_SECRET_TOKEN_123'));
    const removed = await run(['apps', 'remove', 'github']);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match((await run(['apps', 'list'])).stdout, /No connected apps/);
  });

  it('refuses incomplete or malformed input with a usable message', async () => {
    // `apps add x --url .*`, completed wrongly in a different way by each case.
    const addX = (...rest: string[]) => run(['apps', 'add', 'x', '--url', '.*', ...rest]);
    const missing = await addX();
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /at least one --url and one --header/);
    const unset = await addX('--header', 'A: {{org.k}}', '--value-env', 'k=NOPE');
    assert.equal(unset.code, 1);
    assert.match(unset.stderr, /NOPE is not set/);
    const policy = await addX('--header', 'A: b', '--policy', 'SOMETIMES');
    assert.match(policy.stderr, /Unknown policy/);
    assert.equal((await run(['apps', 'remove', 'nothing'])).code, 1);
  });
});
