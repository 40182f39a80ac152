import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

const entry = new URL('../cli-entry.ts', import.meta.url).pathname;
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

function serve(args: readonly string[], home: string) {
  const child = spawn(process.execPath, ['--conditions=development', entry, 'serve', ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      TOOLBUS_HOME: home,
      TOOLBUS_MODEL: 'openai-compatible:http://127.0.0.1:9/v1#none',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /serving on (\S+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  // A refused start is asserted through `exited`; the URL is then never awaited.
  url.catch(() => undefined);
  return {
    child,
    url,
    output: () => ({ stdout, stderr }),
    exited: new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))),
  };
}

test('toolbus serve: loopback without keys serves the CLI user; api-keys mode prints an admin key once', async () => {
  const home = await mkdtemp(join(tmpdir(), 'toolbus-serve-'));
  const local = serve(['--port', '0'], home);
  const url = await local.url;
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.deepEqual(await (await fetch(`${url}/health`)).json(), { ok: true, runningTurns: 0 });
  const chat = await fetch(`${url}/v1/chats`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(chat.status, 201);
  local.child.kill('SIGTERM');
  assert.equal(await local.exited, 0);

  const keyed = serve(['--port', '0', '--auth', 'api-keys'], home);
  const keyedUrl = await keyed.url;
  await new Promise((resolve) => setTimeout(resolve, 300));
  const key = /admin API key \(shown once, store it now\): (tb_\S+)/.exec(keyed.output().stdout)?.[1];
  assert.ok(key, keyed.output().stdout);
  assert.equal((await fetch(`${keyedUrl}/v1/chats`)).status, 401);
  const listed = await fetch(`${keyedUrl}/v1/chats`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(listed.status, 200);
  assert.ok(!keyed.output().stderr.includes(key), 'the key is never logged');
  keyed.child.kill('SIGTERM');
  await keyed.exited;
});

test('toolbus serve refuses a non-loopback host without keys', async () => {
  const home = await mkdtemp(join(tmpdir(), 'toolbus-serve-'));
  const refused = serve(['--port', '0', '--host', '0.0.0.0'], home);
  assert.equal(await refused.exited, 2, 'a wrong command line');
  assert.match(
    refused.output().stderr,
    /--host 0\.0\.0\.0 is not a loopback address: serving on it needs --auth api-keys/,
  );
});
