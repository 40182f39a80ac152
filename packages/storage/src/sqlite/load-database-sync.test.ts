import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { loadDatabaseSync } from './load-database-sync.ts';

test('loadDatabaseSync gives node:sqlite’s DatabaseSync, which opens a working database', () => {
  const Database = loadDatabaseSync();
  assert.equal(Database, DatabaseSync);
  const database = new Database(':memory:');
  assert.deepEqual({ ...database.prepare('SELECT 40 + 2 AS answer').get() }, { answer: 42 });
  database.close();
});

test('on a Node.js without node:sqlite, importing works and loading says what is needed', () => {
  // A child process whose module hooks refuse node:sqlite, as a Node.js before 22.5 does.
  const script = `
    import { registerHooks } from 'node:module';
    registerHooks({
      resolve(specifier, context, next) {
        if (specifier === 'node:sqlite') throw new Error('No such built-in module: node:sqlite');
        return next(specifier, context);
      },
    });
    const { loadDatabaseSync } = await import(${JSON.stringify(new URL('./load-database-sync.ts', import.meta.url).href)});
    try {
      loadDatabaseSync();
      console.log(JSON.stringify({ loaded: true }));
    } catch (error) {
      console.log(JSON.stringify({ code: error.code, message: error.message, name: error.name }));
    }
  `;
  const child = spawnSync(
    process.execPath,
    ['--conditions=development', '--input-type=module', '-e', script],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(child.status, 0, child.stderr);
  const outcome = JSON.parse(child.stdout) as { code?: string; message?: string };
  assert.equal(outcome.code, 'node_sqlite_unavailable');
  assert.match(outcome.message ?? '', /Node\.js 22\.5 or newer/);
});
