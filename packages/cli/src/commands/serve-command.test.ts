import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startScriptedModelServer } from '@toolbus/core/testing';
import { postFirstMessage } from '../__fixtures__/post-first-message.ts';
import { killStartedClis, startCli } from '../__fixtures__/spawn-cli.ts';

const children: ChildProcess[] = [];
after(() => {
  killStartedClis();
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

/** `toolbus serve` from source, in `home`, with `model` as its default model. */
const serve = (
  args: readonly string[],
  home: string,
  model = 'openai-compatible:http://127.0.0.1:9/v1#none',
) => startCli(['serve', ...args], { TOOLBUS_HOME: home, TOOLBUS_MODEL: model });
const servingOn = /serving on (\S+)/;

test('toolbus serve: loopback without keys serves the CLI user; api-keys mode prints an admin key once', async () => {
  const home = await mkdtemp(join(tmpdir(), 'toolbus-serve-'));
  const local = serve(['--port', '0'], home);
  const url = await local.waitForMatch(servingOn);
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
  const keyedUrl = await keyed.waitForMatch(servingOn);
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

test('toolbus serve: Ctrl-C during a turn exits cleanly; the turn ends interrupted with what was answered so far', async () => {
  const model = await startScriptedModelServer({
    turns: [
      {
        repeat: true,
        steps: [
          { type: 'text', text: 'Refunds take ' },
          { type: 'delay', ms: 60_000 },
          { type: 'text', text: 'fourteen days.' },
        ],
      },
    ],
  });
  const home = await mkdtemp(join(tmpdir(), 'toolbus-serve-'));
  const modelName = `openai-compatible:${model.url}/v1#scripted`;
  try {
    const first = serve(['--port', '0'], home, modelName);
    const url = await first.waitForMatch(servingOn);
    const { chatId, response } = await postFirstMessage(url, { content: 'How long do refunds take?' });
    // Read until the answer has begun, then press Ctrl-C; the stream still gets the turn's end.
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('"message-delta"')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    first.child.kill('SIGINT');
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      text += decoder.decode(next.value, { stream: true });
    }
    assert.equal(await first.exited, 0);
    const packets = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { obj: { type: string; reason?: string } });
    assert.deepEqual(packets.at(-1)?.obj, { type: 'stop', reason: 'interrupted' });
    // The server resolved the model (one per name, read over createNodeHttpFetch): undici's fetch always adds
    // sec-fetch-mode, node:http adds none.
    assert.ok(model.requests.length > 0);
    for (const request of model.requests) assert.ok(!request.headerNames.includes('sec-fetch-mode'));

    const second = serve(['--port', '0'], home, modelName);
    const again = await second.waitForMatch(servingOn);
    const detail = (await (await fetch(`${again}/v1/chats/${chatId}`)).json()) as {
      turns: { status: string; endReason: string }[];
      messages: { message: { role: string; content: string } }[];
    };
    assert.equal(detail.turns[0]?.status, 'interrupted');
    assert.match(detail.turns[0]?.endReason ?? '', /shut down while this turn was running/);
    assert.deepEqual(
      detail.messages.map((stored) => stored.message.role),
      ['user', 'assistant'],
    );
    assert.match(
      detail.messages[1]?.message.content ?? '',
      /^Refunds take\n\n\[This answer was interrupted: /,
    );
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  } finally {
    await model.close();
  }
});

test('npm run serve: SIGTERM to npm stops the server it started (no orphan left serving)', async () => {
  const home = await mkdtemp(join(tmpdir(), 'toolbus-npm-serve-'));
  const root = new URL('../../../../', import.meta.url).pathname;
  // npm runs the script through `sh -c` and signals only its own child: unless the shell hands its place to node,
  // the signal ends the shell and node runs on with no parent.
  const npm = spawn('npm', ['run', '--silent', 'serve', '--', '--port', '0'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      TOOLBUS_HOME: home,
      TOOLBUS_MODEL: 'openai-compatible:http://127.0.0.1:9/v1#none',
      npm_config_update_notifier: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(npm);
  let stdout = '';
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    npm.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /serving on (\S+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    npm.once('exit', (code) => reject(new Error(`npm exited ${code}: ${stdout}`)));
  });
  assert.equal((await fetch(`${url}/health`)).status, 200);
  npm.kill('SIGTERM');
  assert.equal(await exited, 0, 'the server shut down cleanly and npm reports its exit');
  assert.match(stdout, /SIGTERM received, stopping running turns and closing streams/);
  await assert.rejects(fetch(`${url}/health`), 'nothing serves on the port any more');
});
