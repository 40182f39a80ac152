import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { spawnCli } from './__fixtures__/spawn-cli.ts';

let home: string;
before(async () => {
  home = await mkdtemp(join(tmpdir(), 'toolbus-persona-names-'));
});
after(() => rm(home, { recursive: true, force: true }));

test('a second persona of the same name (in another case, with spaces) is refused; names are found in any case', async () => {
  const env = { TOOLBUS_HOME: home };
  const created = await spawnCli(['persona', 'create', 'Support', '--no-built-ins'], env);
  assert.equal(created.code, 0, created.stderr);
  const again = await spawnCli(['persona', 'create', ' support ', '--no-built-ins'], env);
  assert.notEqual(again.code, 0);
  assert.match(
    again.stderr,
    /^toolbus: A persona named "Support" already exists \("support" is the same name\); persona names are unique, ignoring case and surrounding spaces\.\n$/,
  );
  const used = await spawnCli(['persona', 'use', 'SUPPORT'], env);
  assert.equal(used.code, 0, used.stderr);
  assert.match(used.stdout, /Chats now use the persona "Support"\./);
  const listed = await spawnCli(['persona', 'list'], env);
  assert.equal(listed.stdout.match(/Support/g)?.length, 1, listed.stdout);
});
