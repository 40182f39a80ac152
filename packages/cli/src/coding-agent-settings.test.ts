import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spawnCli } from './__fixtures__/spawn-cli.ts';
import { configFileProblems } from './config-file-problems.ts';
import { parseSettingValue, resolveSetting } from './config-schema.ts';

describe('codingAgent settings in the config schema', () => {
  it('a config file with every codingAgent setting has no problems', () => {
    assert.deepEqual(
      configFileProblems({
        codingAgent: {
          localRoots: ['/srv/projects'],
          archiveUrl: 'https://git.example.com/{owner}/{repo}/archive.tar.gz',
          tokenArchiveUrl: 'https://api.git.example.com/{owner}/{repo}/tarball',
          webHosts: ['git.example.com'],
          tokenEnv: 'GIT_TOKEN',
        },
      }),
      [],
    );
  });

  it('names what is wrong: a relative root, a template without {repo}, a misspelt key, a token instead of its name', () => {
    const problems = configFileProblems({
      codingAgent: {
        localRoots: ['projects'],
        archiveUrl: 'https://git.example.com/{owner}/archive.tar.gz',
        tokenenv: 'GIT_TOKEN',
        tokenEnv: 'ghp_abc-123',
      },
    });
    assert.equal(problems.length, 4, problems.join('\n'));
    assert.match(problems[0] ?? '', /codingAgent\.localRoots takes absolute folder paths/);
    assert.match(
      problems[1] ?? '',
      /codingAgent\.archiveUrl takes an http\(s\) URL holding \{owner\} and \{repo\}/,
    );
    assert.match(problems[2] ?? '', /unknown key "codingAgent\.tokenenv"/);
    assert.match(problems[3] ?? '', /codingAgent\.tokenEnv takes the NAME of an environment variable/);
    assert.doesNotMatch(problems.join('\n'), /ghp_abc-123/);
    assert.deepEqual(configFileProblems({ codingAgent: { localRoots: '/srv' } }), [
      'codingAgent.localRoots must be a list of folder paths',
    ]);
  });

  it('config set takes the list of local roots and refuses a relative one', async () => {
    const home = await mkdtemp(join(tmpdir(), 'toolbus-coding-agent-settings-'));
    try {
      const env = { TOOLBUS_HOME: home };
      const set = await spawnCli(['config', 'set', 'codingAgent.localRoots', '/srv/a, /srv/b'], env);
      assert.equal(set.code, 0, set.stderr);
      const file = JSON.parse(await readFile(join(home, 'config.json'), 'utf8'));
      assert.deepEqual(file.codingAgent.localRoots, ['/srv/a', '/srv/b']);
      const shown = await spawnCli(['config'], env);
      assert.doesNotMatch(shown.stdout + shown.stderr, /unknown key/);
      const refused = await spawnCli(['config', 'set', 'codingAgent.localRoots', 'src'], env);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /absolute folder paths/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('resolves each codingAgent key and suggests the closest one for a typo', () => {
    assert.deepEqual(resolveSetting('codingAgent.webHosts').path, ['codingAgent', 'webHosts']);
    assert.deepEqual(parseSettingValue(resolveSetting('codingAgent.webHosts'), 'a.example, b.example'), [
      'a.example',
      'b.example',
    ]);
    assert.throws(() => resolveSetting('codingAgent.localRoot'), /did you mean "codingAgent\.localRoots"/);
  });
});
