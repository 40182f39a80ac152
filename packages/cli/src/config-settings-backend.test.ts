import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ServerError } from '@toolbus/server';
import { useCliHome } from './__fixtures__/cli-home.ts';
import { spawnCli } from './__fixtures__/spawn-cli.ts';
import { createConfigSettingsBackend } from './config-settings-backend.ts';

describe("the server's admin settings over the CLI's config file", () => {
  const cli = useCliHome({ prefix: 'toolbus-settings-' });

  test('written with the same validation as `toolbus config set`, read back by both', async () => {
    const env = { TOOLBUS_HOME: cli.home };
    const settings = createConfigSettingsBackend(env);
    await settings.write({ model: 'openai:gpt-4.1', webSearchProvider: 'brave', memoryDefault: true });
    const file = JSON.parse(await readFile(join(cli.home, 'config.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(file, { model: 'openai:gpt-4.1', webSearch: { provider: 'brave' }, memory: 'on' });
    // `toolbus config set` and the settings route are one operation on one file.
    assert.equal((await spawnCli(['config', 'set', 'webSearch.provider', 'tavily'], env)).code, 0);
    assert.deepEqual(await settings.read(), {
      model: 'openai:gpt-4.1',
      webSearchProvider: 'tavily',
      memoryDefault: true,
    });
    await assert.rejects(
      settings.write({ webSearchProvider: 'bravo' }),
      (error) =>
        ServerError.isInstance(error) &&
        error.field === 'body.webSearchProvider' &&
        /did you mean "brave"/.test(error.message),
    );
    await settings.write({ memoryDefault: null });
    assert.equal((await settings.read()).memoryDefault, undefined);
  });
});
