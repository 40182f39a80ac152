import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startScriptedModelServer, textSteps } from '@toolbus/core/testing';
import { killStartedClis, startCli } from '../__fixtures__/spawn-cli.ts';

after(killStartedClis);

/** The CLI's `command` from source, in `home` with only `env` besides PATH and HOME. */
const run = (command: string, args: readonly string[], home: string, env: Record<string, string> = {}) =>
  startCli([command, ...args], { TOOLBUS_HOME: home, ...env });

const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  },
];

/** POSTs a chat completion `body` to the OpenAI-compatible API at `base`, with `headers` besides the JSON type. */
function postCompletion(base: string, body: object, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

test('toolbus gateway turns a text-written call into tool_calls, logs no prompt, and stops cleanly on SIGTERM', async () => {
  const upstream = await startScriptedModelServer({
    handler: (request) =>
      request.lastMessage?.text.includes('slow')
        ? [
            { type: 'text', text: 'slow ' },
            { type: 'delay', ms: 300 },
            { type: 'text', text: 'answer' },
          ]
        : textSteps(['<tool_call>{"name": "get_weather", ', '"arguments": {"city": "Oslo"}}</tool_call>']),
  });
  const home = await mkdtemp(join(tmpdir(), 'toolbus-gateway-'));
  try {
    const gateway = run(
      'gateway',
      [
        '--upstream',
        `local=${upstream.url}/v1`,
        '--port',
        '0',
        '--alias',
        'claude-*=qwen3',
        '--default-model',
        'qwen3',
      ],
      home,
    );
    const url = await gateway.waitForMatch(/toolbus gateway on (\S+)/);
    assert.equal(await gateway.waitForMatch(/ {2}alias (claude-\* → qwen3)/), 'claude-* → qwen3');
    const response = await postCompletion(url, {
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'secret question' }],
      tools,
    });
    const body = (await response.json()) as {
      choices: {
        message: { tool_calls: { function: { name: string; arguments: string } }[] };
        finish_reason: string;
      }[];
    };
    assert.equal(body.choices[0]?.finish_reason, 'tool_calls');
    assert.deepEqual(JSON.parse(body.choices[0]?.message.tool_calls[0]?.function.arguments ?? ''), {
      city: 'Oslo',
    });
    assert.equal(response.headers.get('x-toolbus-upstream'), 'local');
    // The alias sent qwen3 upstream; the answer names the model the client asked for.
    assert.equal(response.headers.get('x-toolbus-model'), 'qwen3');
    assert.equal((body as unknown as { model: string }).model, 'claude-sonnet-4-5');
    // A stream in flight when SIGTERM arrives is finished before the process exits 0.
    const slow = postCompletion(url, {
      model: 'qwen3',
      stream: true,
      messages: [{ role: 'user', content: 'slow' }],
    });
    const slowResponse = await slow;
    gateway.child.kill('SIGTERM');
    const text = await slowResponse.text();
    assert.match(text, /answer/);
    assert.match(text, /\[DONE\]/);
    assert.equal(await gateway.exited, 0);
    const { stderr } = gateway.output();
    assert.match(stderr, /"event":"request"/);
    assert.doesNotMatch(stderr, /secret question/);
  } finally {
    await upstream.close();
  }
});

test('toolbus gateway refuses a wrong flag, a bad upstream and a public host without keys, in words', async () => {
  const home = await mkdtemp(join(tmpdir(), 'toolbus-gateway-'));
  // Started together: each fails on its own, before listening.
  const wrongFlag = run('gateway', ['--upstrem', 'http://127.0.0.1:1/v1'], home);
  const badUrl = run('gateway', ['--upstream', 'not a url'], home);
  const badName = run('gateway', ['--upstream', 'my gpu=http://127.0.0.1:1/v1'], home);
  // A key pasted where its variable's name belongs, with no --upstream (the default upstream takes it).
  const pastedKey = run('gateway', ['--upstream-key-env', 'sk-live-pasted-key', '--port', '0'], home);
  const publicHost = run('gateway', ['--host', '0.0.0.0', '--port', '0'], home);
  const badAlias = run('gateway', ['--alias', 'claude**=qwen3', '--port', '0'], home);
  const aliasWithoutTarget = run('gateway', ['--alias', 'claude-*', '--port', '0'], home);
  const badDefault = run('gateway', ['--default-model', 'qwen*', '--port', '0'], home);
  const missingKey = run(
    'gateway',
    ['--upstream', 'http://127.0.0.1:1/v1', '--upstream-key-env', 'VLLM_KEY', '--port', '0'],
    home,
  );
  assert.equal(await wrongFlag.exited, 2);
  assert.match(wrongFlag.output().stderr, /--upstream/);
  assert.equal(await badUrl.exited, 2);
  assert.match(badUrl.output().stderr, /--upstream not a url: expected an http:\/\/ or https:\/\/ base URL/);
  assert.equal(await badName.exited, 2);
  assert.match(badName.output().stderr, /--upstream my gpu=http:\S+: expected a name of letters, digits/);
  assert.equal(await pastedKey.exited, 2);
  assert.match(pastedKey.output().stderr, /--upstream-key-env: expected the NAME of an environment variable/);
  assert.doesNotMatch(pastedKey.output().stderr + pastedKey.output().stdout, /sk-live-pasted-key/);
  assert.equal(await publicHost.exited, 2);
  assert.match(publicHost.output().stderr, /needs --auth api-keys/);
  assert.equal(await badAlias.exited, 2);
  assert.match(badAlias.output().stderr, /--alias claude\*\*=qwen3: expected a model name or pattern/);
  assert.equal(await aliasWithoutTarget.exited, 2);
  assert.match(aliasWithoutTarget.output().stderr, /--alias claude-\*: expected PATTERN=MODEL/);
  assert.equal(await badDefault.exited, 2);
  assert.match(badDefault.output().stderr, /--default-model qwen\*: expected a served model name/);
  assert.notEqual(await missingKey.exited, 0);
  assert.match(missingKey.output().stderr, /VLLM_KEY is not set/);
});

test('toolbus gateway --auth api-keys takes the keys toolbus serve makes, and reads upstreams from the config file', async () => {
  const upstream = await startScriptedModelServer({
    apiKey: 'upstream-secret',
    handler: () => textSteps(['hello']),
  });
  const home = await mkdtemp(join(tmpdir(), 'toolbus-gateway-'));
  try {
    const serve = run('serve', ['--port', '0', '--auth', 'api-keys'], home, {
      TOOLBUS_MODEL: 'openai-compatible:http://127.0.0.1:9/v1#none',
    });
    const key = await serve.waitForMatch(/admin API key \(shown once, store it now\): (\S+)/);
    serve.child.kill('SIGTERM');
    assert.equal(await serve.exited, 0);
    await writeFile(
      join(home, 'config.json'),
      JSON.stringify({
        gateway: { upstreams: [{ name: 'vllm', baseUrl: `${upstream.url}/v1`, apiKeyEnv: 'VLLM_KEY' }] },
      }),
    );
    const gateway = run('gateway', ['--port', '0', '--auth', 'api-keys'], home, {
      VLLM_KEY: 'upstream-secret',
    });
    const url = await gateway.waitForMatch(/toolbus gateway on (\S+)/);
    const ask = (headers: Record<string, string>) =>
      postCompletion(url, { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, headers);
    assert.equal((await ask({})).status, 401);
    assert.equal((await ask({ authorization: 'Bearer tb_wrong' })).status, 401);
    const answered = await ask({ authorization: `Bearer ${key}` });
    assert.equal(answered.status, 200);
    assert.equal(answered.headers.get('x-toolbus-upstream'), 'vllm');
    gateway.child.kill('SIGTERM');
    assert.equal(await gateway.exited, 0);
    assert.doesNotMatch(gateway.output().stderr, /upstream-secret/);
  } finally {
    await upstream.close();
  }
});

test('toolbus serve mounts the gateway routes beside its own when the config file has a gateway section', async () => {
  const upstream = await startScriptedModelServer({
    handler: () => textSteps(['[get_weather(city="Oslo")]']),
  });
  const home = await mkdtemp(join(tmpdir(), 'toolbus-gateway-serve-'));
  try {
    await writeFile(
      join(home, 'config.json'),
      JSON.stringify({
        gateway: {
          upstreams: [{ name: 'local', baseUrl: `${upstream.url}/v1` }],
          models: { 'claude-*': 'llama-3.2-3b' },
        },
      }),
    );
    const serve = run('serve', ['--port', '0'], home, {
      TOOLBUS_MODEL: 'openai-compatible:http://127.0.0.1:9/v1#none',
    });
    const url = await serve.waitForMatch(/serving on (\S+)/);
    assert.match(await serve.waitForMatch(/recovery gateway: (\S+)/), /\/v1$/);
    const response = await postCompletion(`${url}/v1`, {
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'weather' }],
      tools,
    });
    const body = (await response.json()) as {
      model: string;
      choices: { message: { tool_calls: { function: { name: string } }[] } }[];
    };
    // Through the config file's alias: llama-3.2-3b's dialect (pythonic) read the call.
    assert.equal(body.choices[0]?.message.tool_calls[0]?.function.name, 'get_weather');
    assert.equal(body.model, 'claude-sonnet-4-5');
    assert.equal(response.headers.get('x-toolbus-model'), 'llama-3.2-3b');
    // A model's own entry, /v1/models/{id}, is the gateway's too.
    const model = await fetch(`${url}/v1/models/claude-opus-4-1`);
    assert.equal(((await model.json()) as { id: string }).id, 'claude-opus-4-1');
    // The server's own routes are still its own.
    assert.equal((await fetch(`${url}/health`)).status, 200);
    assert.equal((await fetch(`${url}/v1/chats`)).status, 200);
    serve.child.kill('SIGTERM');
    assert.equal(await serve.exited, 0);
  } finally {
    await upstream.close();
  }
});

test('toolbus gateway refuses a config file whose model aliases are wrong, naming the key', async () => {
  const home = await mkdtemp(join(tmpdir(), 'toolbus-gateway-'));
  await writeFile(
    join(home, 'config.json'),
    JSON.stringify({
      gateway: {
        upstreams: [{ name: 'local', baseUrl: 'http://127.0.0.1:1/v1' }],
        models: { 'claude-*': 'qwen 3' },
        modles: {},
      },
    }),
  );
  const gateway = run('gateway', ['--port', '0'], home);
  assert.notEqual(await gateway.exited, 0);
  const { stderr } = gateway.output();
  assert.match(stderr, /gateway\.models\.claude-\*: a served model name/);
  assert.match(stderr, /gateway: Unrecognized key: "modles"/);
});
