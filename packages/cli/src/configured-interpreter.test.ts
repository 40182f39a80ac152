import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type InterpreterServer, startInterpreterServer } from '@toolbus/interpreter';
import { CodeInterpreterClient, CodeInterpreterPool } from '@toolbus/sandbox';
import { configuredInterpreter } from '@toolbus/server';
import { spawnCli } from './__fixtures__/spawn-cli.ts';
import { configFileProblems } from './config-file-problems.ts';
import { parseSettingValue, resolveSetting } from './config-schema.ts';

describe('sandboxUrls: several sandbox services from the config', () => {
  it('takes distinct http(s) URLs separated by commas and refuses anything else', () => {
    const setting = resolveSetting('sandboxUrls');
    assert.deepEqual(parseSettingValue(setting, 'http://10.0.0.5:8000, http://10.0.0.6:8000'), [
      'http://10.0.0.5:8000',
      'http://10.0.0.6:8000',
    ]);
    assert.throws(
      () => parseSettingValue(setting, 'http://a:8000,ftp://b'),
      /sandboxUrls takes http\(s\) URLs/,
    );
    assert.throws(() => parseSettingValue(setting, ' , '), /sandboxUrls takes http\(s\) URLs/);
    assert.throws(() => parseSettingValue(setting, 'http://a:8000,http://a:8000'), /one is listed twice/);
  });

  it('reports a config file with a wrong sandboxUrls, or with both sandbox settings', () => {
    assert.deepEqual(configFileProblems({ sandboxUrls: ['http://a:1', 'http://b:1'] }), []);
    assert.deepEqual(configFileProblems({ sandboxUrls: 'http://a:1' }), [
      'sandboxUrls must be a list of URLs',
    ]);
    assert.match(configFileProblems({ sandboxUrls: ['http://a:1', 'nope'] }).join(), /takes http\(s\) URLs/);
    assert.deepEqual(
      configFileProblems({ sandboxUrl: 'http://a:1', sandboxUrls: ['http://b:1', 'http://c:1'] }),
      ['set sandboxUrl (one service) or sandboxUrls (several), not both'],
    );
  });

  it('config set writes the list, and config shows what run_python will do with it', async () => {
    const home = await mkdtemp(join(tmpdir(), 'toolbus-sandbox-urls-'));
    try {
      const env = { TOOLBUS_HOME: home };
      const set = await spawnCli(
        ['config', 'set', 'sandboxUrls', 'http://127.0.0.1:8001,http://127.0.0.1:8002'],
        env,
      );
      assert.equal(set.code, 0, set.stderr);
      const file = JSON.parse(await readFile(join(home, 'config.json'), 'utf8'));
      assert.deepEqual(file.sandboxUrls, ['http://127.0.0.1:8001', 'http://127.0.0.1:8002']);
      const shown = await spawnCli(['config'], env);
      assert.match(shown.stdout, /run_python spreads runs over these 2, health-checked/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('configuredInterpreter over real interpreter services', () => {
  let servers: InterpreterServer[];
  before(async () => {
    servers = await Promise.all([startInterpreterServer(), startInterpreterServer()]);
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it('is a pool over sandboxUrls that runs code on both services, a plain client for one URL, nothing when unset', async () => {
    const configured = configuredInterpreter({ sandboxUrls: servers.map((server) => server.url) });
    assert.ok(configured);
    try {
      assert.ok(configured.interpreter instanceof CodeInterpreterPool);
      const pool = configured.interpreter;
      const results = await Promise.all(
        [1, 2].map((value) => pool.execute({ code: `import time\ntime.sleep(0.2)\nprint(${value})` })),
      );
      assert.deepEqual(
        results.map((result) => result.stdout),
        ['1\n', '2\n'],
      );
      // Work is spread over both services: the ids of two uploads name different servers.
      const files = await Promise.all(
        results.map(() => pool.uploadFile({ filename: 'a.txt', content: 'a' })),
      );
      assert.deepEqual(new Set(files.map((file) => file.file_id.split('~')[0])), new Set(['s0', 's1']));
    } finally {
      configured.close();
    }
    const single = configuredInterpreter({ sandboxUrl: servers[0]?.url as string });
    assert.ok(single?.interpreter instanceof CodeInterpreterClient);
    assert.equal(configuredInterpreter({}), undefined);
  });
});
