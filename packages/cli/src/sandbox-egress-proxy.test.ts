// The wiring `toolbus serve` uses for run_python on external sandbox services with `sandboxEgress: "proxy"`: the
// built-in tool factories mint each run's signed egress token from the configured secret key, the real interpreter
// service relays the run's socket to the real standalone egress proxy with it, and the proxy injects the user's
// connected-app credential. Without the setting, the same service gives the run no network.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Emitter, resolveLanguageModel, runToolCalls } from '@toolbus/core';
import { createGuardedFetch } from '@toolbus/core/node';
import { builtInToolFactories, storageEgressCatalogue } from '@toolbus/server';
import {
  addTrackerApp,
  startTestHttpsApi,
  type TestHttpsApi,
} from '../../server/src/__fixtures__/egress-world.ts';
import {
  type StandaloneEgress,
  startStandaloneEgress,
} from '../../server/src/__fixtures__/standalone-egress.ts';
import { loadCliConfig } from './cli-config.ts';
import { egressSecretKey } from './egress-secret-key.ts';
import { type CliWorkspace, openWorkspace } from './open-workspace.ts';

const secretKey = randomBytes(32);
let home: string;
let api: TestHttpsApi;
let egress: StandaloneEgress;
let workspace: CliWorkspace;
const credential = `tok-${randomBytes(6).toString('hex')}`;
const lines: string[] = [];

async function runPython(sandboxEgress: 'proxy' | 'off'): Promise<string> {
  await writeFile(
    join(home, 'config.json'),
    JSON.stringify({ sandboxUrl: egress.interpreter.url, sandboxEgress }),
  );
  const env = { TOOLBUS_HOME: home, TOOLBUS_SECRET_KEY: secretKey.toString('base64') };
  const config = loadCliConfig({ env });
  assert.deepEqual(config.problems, []);
  const cleanups: (() => Promise<void>)[] = [];
  const fetch = createGuardedFetch({ level: 'strict' });
  try {
    const factories = builtInToolFactories({
      settings: config.file,
      egressCaDirectory: join(config.home, 'egress-ca'),
      egressSecretKey: () => egressSecretKey(config, env),
      index: workspace.index,
      storage: workspace.storage,
      fetch,
      userId: workspace.user.id,
      env,
      model: resolveLanguageModel('openai-compatible:http://127.0.0.1:1/v1#unused', { env: {} }),
      onClose: (cleanup) => cleanups.push(cleanup),
    });
    const tool = await factories.get('PythonTool')?.({
      builtInId: 'PythonTool',
      persona: workspace.persona,
      user: workspace.user,
      storage: workspace.storage,
      fetch,
      availabilityContext: { userId: workspace.user.id, files: [] },
      row: undefined,
    });
    assert.ok(tool);
    const code = [
      'import urllib.request, urllib.error',
      'try:',
      `    with urllib.request.urlopen(urllib.request.Request("https://api.test:${api.port}/items", method="POST", data=b"{}"), timeout=30) as r:`,
      '        print("status", r.status)',
      'except Exception as error:',
      '    print("failed", type(error).__name__)',
    ].join('\n');
    const emitter = new Emitter();
    const { outcomes } = await runToolCalls({
      calls: [{ id: 'call_py', name: 'run_python', arguments: { code }, placement: { turn: 1, tab: 0 } }],
      tools: [tool],
      emitter,
      files: [],
      userId: workspace.user.id,
    });
    emitter.close();
    for await (const _ of emitter);
    const outcome = outcomes[0];
    assert.equal(outcome?.status, 'success');
    return (
      JSON.parse(outcome.status === 'success' ? outcome.response.llmFacing : '{}') as { stdout: string }
    ).stdout;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await fetch.close();
  }
}

before(async () => {
  home = await mkdtemp(join(tmpdir(), 'toolbus-cli-remote-egress-'));
  const env = { TOOLBUS_HOME: home, TOOLBUS_SECRET_KEY: secretKey.toString('base64') };
  workspace = await openWorkspace(loadCliConfig({ env }));
  api = await startTestHttpsApi(join(home, 'api-ca'));
  const { storage, user } = workspace;
  await addTrackerApp({ storage, userId: user.id, port: api.port, token: credential, policy: 'ALWAYS' });
  egress = await startStandaloneEgress({
    directory: home,
    api,
    // The key `toolbus egress serve` derives from the same secret key as the server.
    secretKey: new Uint8Array(secretKey),
    context: { ...storageEgressCatalogue(storage), logger: (event) => lines.push(event) },
  });
});

after(async () => {
  await egress?.close();
  api?.close();
  await workspace?.close();
  await rm(home, { recursive: true, force: true });
});

describe('run_python on an external sandbox service with sandboxEgress=proxy', () => {
  it("reaches the connected app through the standalone proxy with the user's credential", async () => {
    const before = api.received.length;
    const stdout = await runPython('proxy');
    assert.match(stdout, /^status 201$/m, stdout);
    assert.deepEqual(
      api.received.slice(before).map((request) => request.authorization),
      [`Bearer ${credential}`],
    );
    assert.ok(lines.includes('credential_injected'), lines.join(','));
  });

  it('without the setting the same service gives the run no network, and nothing reaches the API', async () => {
    const before = api.received.length;
    const stdout = await runPython('off');
    assert.match(stdout, /^failed /m, stdout);
    assert.equal(api.received.length, before);
  });
});
