import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { resolveLanguageModel } from '../llm/resolve-language-model.ts';
import { streamModelStep } from '../llm/stream-model-step.ts';
import { startScriptedModelServer } from '../testing/index.ts';
import { createNodeHttpFetch } from './node-http-fetch.ts';

async function serve(
  handle: (incoming: IncomingMessage, outgoing: ServerResponse) => void,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const readBody = (incoming: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    incoming.setEncoding('utf8');
    incoming.on('data', (part: string) => {
      body += part;
    });
    incoming.on('end', () => resolve(body));
  });

test('the request goes out with its method, headers and body; each write of the answer is read as it comes', async () => {
  let release = () => {};
  const server = await serve((incoming, outgoing) => {
    void readBody(incoming).then((body) => {
      outgoing.writeHead(201, {
        'content-type': 'text/plain',
        'x-echo': `${incoming.method} ${body}`,
        'x-auth': String(incoming.headers.authorization),
      });
      outgoing.write('first');
      release = () => outgoing.end('second');
    });
  });
  try {
    const fetch = createNodeHttpFetch();
    const response = await fetch(`${server.url}/v1/x`, {
      method: 'POST',
      headers: { Authorization: 'Bearer k', 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    assert.equal(response.status, 201);
    assert.equal(response.headers.get('x-echo'), 'POST {"a":1}');
    assert.equal(response.headers.get('x-auth'), 'Bearer k');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    // The first write arrives while the server still holds the rest back: nothing waits for the end.
    assert.equal(decoder.decode((await reader.read()).value), 'first');
    release();
    assert.equal(decoder.decode((await reader.read()).value), 'second');
    assert.equal((await reader.read()).done, true);
  } finally {
    await server.close();
  }
});

test('a refused connection fails as fetch does, so the provider reports the model unavailable', async () => {
  const server = await serve(() => {});
  const { url } = server;
  await server.close();
  const fetch = createNodeHttpFetch();
  await assert.rejects(fetch(`${url}/`), (error: unknown) => {
    assert.ok(error instanceof TypeError);
    assert.equal(error.message, 'fetch failed');
    assert.equal((error.cause as { code?: string }).code, 'ECONNREFUSED');
    return true;
  });
  const model = resolveLanguageModel(`openai-compatible:${url}/v1#m`, { env: {}, fetch });
  const events = [];
  for await (const event of streamModelStep({
    model,
    messages: [{ role: 'user', content: 'hi' }],
    maxRetriesBeforeFirstChunk: 0,
  })) {
    events.push(event);
  }
  const last = events.at(-1);
  assert.equal(last?.type, 'error');
  assert.equal(last?.type === 'error' ? last.error.code : undefined, 'model_unavailable');
});

test('an abort stops the request and the body stream with the signal reason', async () => {
  const server = await serve((_incoming, outgoing) => {
    outgoing.writeHead(200);
    outgoing.write('part');
  });
  try {
    const fetch = createNodeHttpFetch();
    const early = new AbortController();
    early.abort();
    await assert.rejects(fetch(`${server.url}/`, { signal: early.signal }), { name: 'AbortError' });
    const controller = new AbortController();
    const response = await fetch(`${server.url}/`, { signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    await assert.rejects(reader.read(), { name: 'AbortError' });
  } finally {
    await server.close();
  }
});

test('a body cut mid-stream errors the stream with a TypeError (a retryable broken stream)', async () => {
  const server = await serve((_incoming, outgoing) => {
    outgoing.writeHead(200, { 'content-length': '100' });
    outgoing.write('only part of it');
    setTimeout(() => outgoing.socket?.destroy(), 20);
  });
  try {
    const response = await createNodeHttpFetch()(`${server.url}/`);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await assert.rejects(reader.read(), TypeError);
  } finally {
    await server.close();
  }
});

test('a real provider package streams a scripted model through it: text and a native tool call', async () => {
  const server = await startScriptedModelServer({
    turns: [
      {
        steps: [
          { type: 'text', text: 'Hello ' },
          { type: 'text', text: 'world' },
          { type: 'tool-call', id: 'call_1', name: 'lookup', arguments: { query: 'x' } },
        ],
      },
    ],
  });
  try {
    const model = resolveLanguageModel(`openai-compatible:${server.url}/v1#m`, {
      env: {},
      fetch: createNodeHttpFetch(),
    });
    let text = '';
    const calls: string[] = [];
    for await (const event of streamModelStep({
      model,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'lookup', description: 'Looks up', parameters: { type: 'object' } }],
    })) {
      if (event.type === 'text-delta') text += event.text;
      if (event.type === 'tool-call-end') calls.push(`${event.name} ${event.rawArguments}`);
      if (event.type === 'error') assert.fail(event.error.message);
    }
    assert.equal(text, 'Hello world');
    assert.deepEqual(calls, ['lookup {"query":"x"}']);
  } finally {
    await server.close();
  }
});

test('a redirect is followed the way fetch follows it: the request goes again to the new address', async () => {
  const target = await serve((incoming, outgoing) => {
    void readBody(incoming).then((body) => {
      outgoing.writeHead(200, { 'content-type': 'text/plain' });
      outgoing.end(`moved ${incoming.method} ${body}`);
    });
  });
  const origin = await serve((incoming, outgoing) => {
    incoming.resume();
    outgoing.writeHead(307, { location: `${target.url}/v1/chat/completions` });
    outgoing.end();
  });
  try {
    const response = await createNodeHttpFetch()(`${origin.url}/v1/chat/completions`, {
      method: 'POST',
      body: '{"a":1}',
    });
    assert.equal(response.status, 200);
    assert.equal(await response.text(), 'moved POST {"a":1}');
  } finally {
    await origin.close();
    await target.close();
  }
});
