import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { type ClientRequest, createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type RunningGateway, startGateway } from './gateway-server.ts';

const chunk = (delta: string, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: delta === '' ? {} : { content: delta }, finish_reason: finish }] })}\n\n`;

// A model server's first chunk usually travels with its response head (`node:http`, like many servers, sends the
// head with the first write). The gateway then had the chunk's bytes before its own code had resumed from the
// head: the chunk waited in the paused stream for the awaits and the stream's resume.
describe("the gateway's first streamed chunk", () => {
  let upstream: Server;
  let upstreamPort: number;
  let gateway: RunningGateway;

  before(async () => {
    upstream = createServer((incoming, outgoing) => {
      incoming.resume();
      incoming.on('end', () => {
        outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
        // The head and the first chunk in one write.
        outgoing.write(chunk('Hello'));
        setTimeout(() => outgoing.end(`${chunk(' there')}${chunk('', 'stop')}data: [DONE]\n\n`), 20);
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamPort = (upstream.address() as AddressInfo).port;
    gateway = await startGateway({
      upstreams: [{ name: 'local', baseUrl: `http://127.0.0.1:${upstreamPort}/v1` }],
    });
  });
  after(async () => {
    await gateway.close();
    upstream.close();
  });

  const routes = [
    {
      path: '/v1/chat/completions',
      body: {
        model: 'qwen3',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
      },
      reads: [/"content":"Hello"/, /"content":" there"/],
    },
    {
      path: '/v1/messages',
      body: {
        model: 'qwen3',
        stream: true,
        max_tokens: 100,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
      },
      reads: [/"text":"Hello"/, /"text":" there"/],
    },
  ];
  for (const route of routes) {
    it(`${route.path}: is written to the client in the read that brought it, with the upstream head`, async () => {
      let gatewayResponse: ServerResponse | undefined;
      let writtenWhenReadHandled: number | undefined;
      const onRequest = (message: unknown): void => {
        const { server, response } = message as { server: Server; response: ServerResponse };
        if (server === gateway.server) gatewayResponse = response;
      };
      const onUpstreamHead = (message: unknown): void => {
        const { request } = message as { request: ClientRequest };
        if (request.socket?.remotePort !== upstreamPort) return;
        // Microtasks run once the read that brought the head is handled, its body bytes included.
        queueMicrotask(() => {
          const socket = gatewayResponse?.socket;
          writtenWhenReadHandled = (socket?.writableLength ?? 0) + (socket?.bytesWritten ?? 0);
        });
      };
      subscribe('http.server.request.start', onRequest);
      subscribe('http.client.response.finish', onUpstreamHead);
      try {
        const answer = await fetch(`${gateway.url}${route.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(route.body),
        });
        const text = await answer.text();
        for (const pattern of route.reads) assert.match(text, pattern);
      } finally {
        unsubscribe('http.server.request.start', onRequest);
        unsubscribe('http.client.response.finish', onUpstreamHead);
      }
      assert.ok(gatewayResponse, 'the gateway answered the request');
      assert.ok(
        (writtenWhenReadHandled ?? 0) > 0,
        'the first chunk had not been written when the read that brought it was handled',
      );
    });
  }
});
