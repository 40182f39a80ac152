import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openPostgresDocumentIndex, openPostgresStorage } from '@toolbus/storage-postgres';
import { startTestPostgres, type TestPostgres } from '@toolbus/storage-postgres/testing';
import { forgeZip, skillMarkdown } from '../../skills/src/__fixtures__/forge-zip.ts';
import { spawnCli } from './__fixtures__/spawn-cli.ts';
import { loadCliConfig } from './cli-config.ts';
import { loadChatSkills } from './load-skills.ts';

describe('the CLI on PostgreSQL storage', () => {
  let cluster: TestPostgres;
  let home: string;
  const secretKey = randomBytes(32).toString('base64');
  before(async () => {
    cluster = await startTestPostgres();
    home = await mkdtemp(join(tmpdir(), 'toolbus-cli-pg-'));
  });
  after(async () => {
    await cluster.stop();
    await rm(home, { recursive: true, force: true });
  });

  test('TOOLBUS_STORAGE_URL puts everything in PostgreSQL and no SQLite file is made', async () => {
    const url = await cluster.createDatabase();
    const env = { TOOLBUS_HOME: home, TOOLBUS_STORAGE_URL: url, TOOLBUS_SECRET_KEY: secretKey };
    const created = await spawnCli(['persona', 'create', 'analyst'], env);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(existsSync(join(home, 'toolbus.db')), false);
    const docs = join(home, 'docs');
    await mkdir(docs);
    await writeFile(join(docs, 'vpn.md'), '# VPN\n\nImport the office profile before connecting.\n');
    const indexed = await spawnCli(['index', docs], env);
    assert.equal(indexed.code, 0, indexed.stderr);
    assert.equal(existsSync(join(home, 'index.db')), false, 'the search index lives in PostgreSQL too');
    const index = await openPostgresDocumentIndex({ url });
    try {
      assert.match((await index.search('office profile'))[0]?.content ?? '', /Import the office profile/);
    } finally {
      await index.close();
    }
    const storage = await openPostgresStorage({ url, secretKey, environment: {} });
    try {
      assert.ok((await storage.personas.list()).some((persona) => persona.name === 'analyst'));
      assert.ok(await storage.users.get({ email: 'local@toolbus.invalid' }));
    } finally {
      await storage.close();
    }
    const shown = await spawnCli(['config'], env);
    assert.match(shown.stdout, new RegExp(`PostgreSQL at ${cluster.address.replace('.', '\\.')}/`));
    assert.ok(!shown.stdout.includes(new URL(url).password), 'config never prints the password');
  });

  test('storage.url in the config file takes a URL without password; the password comes from PGPASSWORD', async () => {
    const url = new URL(await cluster.createDatabase());
    const password = decodeURIComponent(url.password);
    const withPassword = await spawnCli(['config', 'set', 'storage.url', url.toString()], {
      TOOLBUS_HOME: home,
    });
    assert.notEqual(withPassword.code, 0);
    assert.match(withPassword.stderr, /must not hold a password/);
    assert.ok(!withPassword.stderr.includes(password));
    const wrongScheme = await spawnCli(['config', 'set', 'storage.url', 'mysql://db/toolbus'], {
      TOOLBUS_HOME: home,
    });
    assert.notEqual(wrongScheme.code, 0);
    assert.match(wrongScheme.stderr, /postgres:\/\/ or postgresql:\/\//);
    url.password = '';
    assert.equal(
      (await spawnCli(['config', 'set', 'storage.url', url.toString()], { TOOLBUS_HOME: home })).code,
      0,
    );
    assert.ok(!(await readFile(join(home, 'config.json'), 'utf8')).includes(password));
    const env = { TOOLBUS_HOME: home, TOOLBUS_SECRET_KEY: secretKey, PGPASSWORD: password };
    const created = await spawnCli(['persona', 'create', 'from-config'], env);
    assert.equal(created.code, 0, created.stderr);
    const listed = await spawnCli(['persona', 'list'], env);
    assert.match(listed.stdout, /from-config/);
    assert.equal((await spawnCli(['config', 'unset', 'storage.url'], { TOOLBUS_HOME: home })).code, 0);
  });

  test('skills live in the database: added on one host, listed, loaded and removed on another', async () => {
    const url = await cluster.createDatabase();
    // Two hosts: each its own toolbus home, one database.
    const [first, second] = await Promise.all([
      mkdtemp(join(tmpdir(), 'toolbus-host-a-')),
      mkdtemp(join(tmpdir(), 'toolbus-host-b-')),
    ]);
    const envOf = (hostHome: string) => ({
      TOOLBUS_HOME: hostHome,
      TOOLBUS_STORAGE_URL: url,
      TOOLBUS_SECRET_KEY: secretKey,
    });
    try {
      const bundle = join(first, 'shared-notes.zip');
      await writeFile(
        bundle,
        forgeZip([{ name: 'SKILL.md', data: skillMarkdown('shared-notes', 'Notes every replica shares.') }]),
      );
      const added = await spawnCli(['skills', 'add', bundle], envOf(first));
      assert.equal(added.code, 0, added.stderr);
      const listed = await spawnCli(['skills', 'list'], envOf(second));
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /^shared-notes {2}\[custom, 1 files\] {2}Notes every replica shares\.$/m);
      for (const hostHome of [first, second]) {
        assert.equal(existsSync(join(hostHome, 'skills')), false, 'no skills folder on either host');
      }
      // What `toolbus chat` mounts on the second host: the skill, its bundle read from the database.
      const skills = await loadChatSkills(loadCliConfig({ env: envOf(second) }), envOf(second));
      try {
        assert.deepEqual(skills.names, ['shared-notes']);
        assert.match(
          await readFile(join(skills.root ?? '', 'shared-notes', 'SKILL.md'), 'utf8'),
          /Notes every replica shares/,
        );
      } finally {
        await skills.close();
      }
      const removed = await spawnCli(['skills', 'remove', 'shared-notes'], envOf(second));
      assert.equal(removed.code, 0, removed.stderr);
      assert.equal((await spawnCli(['skills', 'list'], envOf(first))).stdout, 'No skills.\n');
    } finally {
      await Promise.all([first, second].map((path) => rm(path, { recursive: true, force: true })));
    }
  });

  test('skills added while storage was SQLite move into PostgreSQL once, and a removed one stays removed', async () => {
    const url = await cluster.createDatabase();
    const hostHome = await mkdtemp(join(tmpdir(), 'toolbus-host-moving-'));
    const sqliteEnv = { TOOLBUS_HOME: hostHome, TOOLBUS_SECRET_KEY: secretKey };
    const postgresEnv = { ...sqliteEnv, TOOLBUS_STORAGE_URL: url };
    try {
      for (const [name, description] of [
        ['field-notes', 'Notes from the field.'],
        ['resume-tidy', 'Tidies a résumé.'],
      ] as const) {
        const bundle = join(hostHome, `${name}.zip`);
        await writeFile(bundle, forgeZip([{ name: 'SKILL.md', data: skillMarkdown(name, description) }]));
        const added = await spawnCli(['skills', 'add', bundle], sqliteEnv);
        assert.equal(added.code, 0, added.stderr);
      }
      const registryFile = join(hostHome, 'skills', 'skills.sqlite');
      assert.ok(existsSync(registryFile));
      // Storage moves to PostgreSQL: the first command that opens the skills brings them along.
      const listed = await spawnCli(['skills', 'list'], postgresEnv);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /^field-notes {2}\[custom, 1 files\] {2}Notes from the field\.$/m);
      assert.match(listed.stdout, /^resume-tidy {2}\[custom, 1 files\] {2}Tidies a résumé\.$/m);
      assert.match(
        listed.stderr,
        /moved 2 skill\(s\) from .* into PostgreSQL storage; the old registry is kept as /,
      );
      assert.equal(existsSync(registryFile), false, 'the folder registry is renamed, not read again');
      const kept = (await readdir(join(hostHome, 'skills'))).filter((name) =>
        name.startsWith('skills.sqlite.moved'),
      );
      assert.equal(kept.length, 1, 'the old registry is kept beside');
      // What a chat on another host mounts: the bundle, read from the database.
      const otherHome = await mkdtemp(join(tmpdir(), 'toolbus-host-other-'));
      const otherEnv = { ...postgresEnv, TOOLBUS_HOME: otherHome };
      const skills = await loadChatSkills(loadCliConfig({ env: otherEnv }), otherEnv);
      try {
        assert.match(
          await readFile(join(skills.root ?? '', 'field-notes', 'SKILL.md'), 'utf8'),
          /Notes from the field/,
        );
      } finally {
        await skills.close();
        await rm(otherHome, { recursive: true, force: true });
      }
      // Removed in the database, it is not brought back from the folder.
      const removed = await spawnCli(['skills', 'remove', 'field-notes'], postgresEnv);
      assert.equal(removed.code, 0, removed.stderr);
      const again = await spawnCli(['skills', 'list'], postgresEnv);
      assert.doesNotMatch(again.stdout, /field-notes/);
      assert.match(again.stdout, /resume-tidy/);
      assert.doesNotMatch(again.stderr, /moved/);
    } finally {
      await rm(hostHome, { recursive: true, force: true });
    }
  });

  test('an unreachable server is a clear error naming host and port, never the password', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const address = probe.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    await new Promise((resolve) => probe.close(resolve));
    const run = await spawnCli(['persona', 'list'], {
      TOOLBUS_HOME: home,
      TOOLBUS_SECRET_KEY: secretKey,
      TOOLBUS_STORAGE_URL: `postgres://toolbus:s3cret-pass-77@127.0.0.1:${port}/toolbus`,
    });
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, new RegExp(`Cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}`));
    assert.ok(!`${run.stderr}${run.stdout}`.includes('s3cret-pass-77'));
  });
});
