import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { type ScriptedModelServer, startScriptedModelServer, textSteps } from '@toolbus/core/testing';
import { weatherTool } from './__fixtures__/text-call-dialects.ts';
import type { GatewayLogEvent } from './gateway-options.ts';
import { createGatewayHandler, type RunningGateway, startGateway } from './gateway-server.ts';
import { GatewayConfigError } from './upstream.ts';

const chat = (content: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'm', messages: [{ role: 'user', content }], tools: [weatherTool], ...extra });

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as { error?: { message: string; type: string; code: string | null } },
  };
}

describe('the gateway as a server', () => {
  let upstream: ScriptedModelServer;
  let gateway: RunningGateway;
  const log: GatewayLogEvent[] = [];
  const secretKey = 'tbk_secret_value_123';

  before(async () => {
    upstream = await startScriptedModelServer({
      apiKey: 'upstream-key-456',
      handler(request) {
        const last = request.lastMessage?.text ?? '';
        if (last.includes('[fail]'))
          return [{ type: 'http-error', status: 503, message: 'model is loading' }];
        if (last.includes('[bad-request]'))
          return [{ type: 'http-error', status: 400, message: 'context too long' }];
        if (last.includes('[slow]'))
          return [
            { type: 'text', text: 'a' },
            { type: 'delay', ms: 5000 },
            { type: 'text', text: 'b' },
          ];
        return textSteps(['private prompt answer']);
      },
    });
    gateway = await startGateway({
      upstreams: [{ name: 'local', baseUrl: `${upstream.url}/v1`, apiKeyEnv: 'UPSTREAM_KEY' }],
      env: { UPSTREAM_KEY: 'upstream-key-456' },
      authenticate: async (key) => (key === secretKey ? { id: 'key-1' } : undefined),
      requestsPerMinute: 10,
      maxRequestBytes: 4096,
      log: (event) => log.push(event),
    });
  });
  after(async () => {
    await gateway.close();
    await upstream.close();
  });

  const auth = { authorization: `Bearer ${secretKey}` };

  it('refuses a request without a valid key with an OpenAI-style 401, and takes x-api-key too', async () => {
    const none = await post(`${gateway.url}/v1/chat/completions`, chat('hi'));
    assert.equal(none.status, 401);
    assert.equal(none.body.error?.code, 'invalid_api_key');
    const wrong = await post(`${gateway.url}/v1/chat/completions`, chat('hi'), {
      authorization: 'Bearer nope',
    });
    assert.equal(wrong.status, 401);
    const anthropicStyle = await post(`${gateway.url}/v1/chat/completions`, chat('hi'), {
      'x-api-key': secretKey,
    });
    assert.equal(anthropicStyle.status, 200);
  });

  it('maps upstream errors to OpenAI error bodies with the upstream message', async () => {
    const overloaded = await post(`${gateway.url}/v1/chat/completions`, chat('x [fail]'), auth);
    assert.equal(overloaded.status, 502);
    assert.match(
      overloaded.body.error?.message ?? '',
      /upstream model server local answered 503: model is loading/,
    );
    assert.equal(overloaded.body.error?.type, 'server_error');
    const invalid = await post(`${gateway.url}/v1/chat/completions`, chat('x [bad-request]'), auth);
    assert.equal(invalid.status, 400);
    assert.match(invalid.body.error?.message ?? '', /context too long/);
  });

  it('refuses an oversized body with 413 and Connection: close', async () => {
    const big = await post(`${gateway.url}/v1/chat/completions`, chat('x'.repeat(10_000)), auth);
    assert.equal(big.status, 413);
    assert.equal(big.headers.get('connection'), 'close');
    assert.match(big.body.error?.message ?? '', /larger than the gateway accepts \(4096 bytes\)/);
  });

  it('answers bad JSON, a missing model, an unknown route and a wrong method in words', async () => {
    assert.equal((await post(`${gateway.url}/v1/chat/completions`, '{nope', auth)).status, 400);
    const noModel = await post(`${gateway.url}/v1/chat/completions`, JSON.stringify({ messages: [] }), auth);
    assert.match(noModel.body.error?.message ?? '', /^model: /);
    const unknown = await fetch(`${gateway.url}/v1/responses`, { method: 'POST', headers: auth });
    assert.equal(unknown.status, 404);
    const wrongMethod = await fetch(`${gateway.url}/v1/chat/completions`, { headers: auth });
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.get('allow'), 'POST');
  });

  it('cancels the upstream request when the client goes away', async () => {
    const before = upstream.requests.length;
    await new Promise<void>((resolve, reject) => {
      const request = httpRequest(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
      });
      request.on('response', (response) => {
        response.once('data', () => {
          request.destroy();
          resolve();
        });
      });
      request.on('error', (error) =>
        (error as { code?: string }).code === 'ECONNRESET' ? resolve() : reject(error),
      );
      request.end(chat('x [slow]', { stream: true }));
    });
    const sent = upstream.requests[before];
    assert.ok(sent);
    assert.equal(await upstream.settled(sent), 'client-closed');
  });

  it('says /health is ok and logs names and figures, never prompt text or keys', async () => {
    const health = await fetch(`${gateway.url}/health`);
    assert.deepEqual(await health.json(), { status: 'ok', upstreams: ['local'] });
    const text = JSON.stringify(log);
    assert.ok(
      log.some((event) => event.event === 'request' && event.status === 200 && event.caller === 'key-1'),
    );
    assert.doesNotMatch(text, /private prompt|x \[fail\]|tbk_secret_value_123|upstream-key-456/);
  });

  it('limits requests per key per minute with 429 and Retry-After', async () => {
    let limited: Awaited<ReturnType<typeof post>> | undefined;
    for (let attempt = 0; attempt < 15 && limited === undefined; attempt += 1) {
      const answer = await post(`${gateway.url}/v1/chat/completions`, chat('hi'), auth);
      if (answer.status === 429) limited = answer;
    }
    assert.ok(limited, 'the limit of 10 a minute was never applied');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.match(limited.body.error?.message ?? '', /limit is 10 a minute/);
  });

  it('logs each request refused before an upstream: its route, status and why, never the key', async () => {
    const refusal = (outcome: string) =>
      log.find((event) => event.event === 'request' && event.outcome === outcome);
    // The line is written when the response closes, which may come just after the client has read it.
    const expected = [
      'unauthorized',
      'invalid-request',
      'no-route',
      'wrong-method',
      'too-large',
      'rate-limited',
    ];
    for (let wait = 0; wait < 200 && !expected.every(refusal); wait += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(
      { ...refusal('unauthorized'), ms: 0 },
      {
        event: 'request',
        route: '/v1/chat/completions',
        method: 'POST',
        status: 401,
        outcome: 'unauthorized',
        ms: 0,
      },
    );
    assert.equal(refusal('invalid-request')?.status, 400);
    assert.equal(refusal('invalid-request')?.caller, 'key-1');
    assert.equal(refusal('no-route')?.route, '/v1/responses');
    assert.equal(refusal('wrong-method')?.status, 405);
    assert.equal(refusal('too-large')?.status, 413);
    assert.equal(refusal('rate-limited')?.caller, 'key-1');
    assert.equal(refusal('rate-limited')?.status, 429);
    assert.ok(!log.some((event) => event.route === '/health'), '/health is not logged');
    // A request that reached the upstream is logged once, by its route, not again here.
    assert.ok(
      !log.some(
        (event) =>
          event.event === 'request' && event.outcome === 'answered' && event.route === '/v1/chat/completions',
      ),
    );
    assert.doesNotMatch(JSON.stringify(log), /tbk_secret_value_123|Bearer nope|nope/);
  });

  it('says which upstream is unreachable', async () => {
    const closed = await startScriptedModelServer({ turns: [] });
    const deadUrl = closed.url;
    await closed.close();
    const dead = await startGateway({ upstreams: [{ name: 'gone', baseUrl: `${deadUrl}/v1` }] });
    try {
      const answer = await post(`${dead.url}/v1/chat/completions`, chat('hi'));
      assert.equal(answer.status, 502);
      assert.match(answer.body.error?.message ?? '', /gone could not be reached: it refused the connection/);
    } finally {
      await dead.close();
    }
  });

  it('answers an upstream that sends no head in time with a 504 in each format', async () => {
    const late = await startScriptedModelServer({
      handler: () => [
        { type: 'delay', ms: 3000 },
        { type: 'text', text: 'late' },
      ],
    });
    const timing = await startGateway({
      upstreams: [{ name: 'late', baseUrl: `${late.url}/v1` }],
      upstreamTimeoutMs: 100,
    });
    try {
      const openai = await post(`${timing.url}/v1/chat/completions`, chat('hi'));
      assert.equal(openai.status, 504);
      assert.equal(openai.body.error?.code, 'upstream_timeout');
      assert.equal(openai.body.error?.type, 'server_error');
      const anthropic = await fetch(`${timing.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(anthropic.status, 504);
      assert.equal(((await anthropic.json()) as { error: { type: string } }).error.type, 'timeout_error');
    } finally {
      await timing.close();
      await late.close();
    }
  });

  it('refuses to start when an upstream key variable is unset, naming the variable only', () => {
    assert.throws(
      () =>
        createGatewayHandler({
          upstreams: [{ name: 'vllm', baseUrl: 'http://127.0.0.1:1/v1', apiKeyEnv: 'VLLM_KEY' }],
          env: {},
        }),
      (error: unknown) => error instanceof GatewayConfigError && /VLLM_KEY is not set/.test(error.message),
    );
  });
});
