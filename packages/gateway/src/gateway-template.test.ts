import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { readChatStream } from './__fixtures__/read-chat-stream.ts';
import { weatherTool } from './__fixtures__/text-call-dialects.ts';
import { type RunningGateway, startGateway } from './gateway-server.ts';

// A model family no dialect knows, served by an Ollama-shaped upstream: its chat template (Ollama's documented
// `POST /api/show`) writes calls between `<my_call>` tags. The gateway reads the template once and hides those
// tags; without it, the tags would reach the client's text.
const template =
  '{{- range .Messages }}{{ if .ToolCalls }}{{ range .ToolCalls }}<my_call>{"name": "{{ .Function.Name }}", "arguments": {{ .Function.Arguments }}}</my_call>{{ end }}{{ end }}{{ end }}';
const answer = 'Checking.\n<my_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</my_call>';

describe('gateway dialects from the served chat template', () => {
  let upstream: Server;
  let baseUrl: string;
  const shows: string[] = [];
  let gateway: RunningGateway;

  before(async () => {
    upstream = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        if (request.url === '/api/show') {
          shows.push(body);
          response.setHeader('content-type', 'application/json');
          response.end(JSON.stringify({ template, capabilities: ['completion', 'tools'] }));
          return;
        }
        if (request.url === '/v1/chat/completions') {
          response.setHeader('content-type', 'text/event-stream');
          for (let at = 0; at < answer.length; at += 5) {
            const chunk = {
              id: 'c',
              object: 'chat.completion.chunk',
              created: 0,
              model: 'acme-7b',
              choices: [{ index: 0, delta: { content: answer.slice(at, at + 5) }, finish_reason: null }],
            };
            response.write(`data: ${JSON.stringify(chunk)}\n\n`);
          }
          response.end(
            `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'acme-7b', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
          );
          return;
        }
        response.statusCode = 404;
        response.end('{}');
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  after(async () => {
    await gateway?.close();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  });

  async function ask(gatewayUrl: string) {
    const client = new OpenAI({ baseURL: `${gatewayUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'acme-7b',
      stream: true,
      messages: [{ role: 'user', content: 'weather in Oslo' }],
      tools: [weatherTool],
    });
    const { content, calls } = await readChatStream(stream);
    return {
      content,
      name: calls.map((call) => call.name).join(''),
      args: calls.map((call) => call.arguments).join(''),
    };
  }

  it('reads the model template from Ollama once and keeps its call tags out of the text', async () => {
    gateway = await startGateway({ upstreams: [{ name: 'ollama', baseUrl: `${baseUrl}/v1` }], fetch });
    const first = await ask(gateway.url);
    assert.equal(first.name, 'get_weather');
    assert.deepEqual(JSON.parse(first.args), { city: 'Oslo' });
    assert.equal(first.content, 'Checking.\n');
    await ask(gateway.url);
    assert.deepEqual(shows, ['{"model":"acme-7b"}'], 'the template is read once per model');
  });

  it('without reading templates the unknown tags would show', async () => {
    const blind = await startGateway({
      upstreams: [{ name: 'ollama', baseUrl: `${baseUrl}/v1`, chatTemplate: 'none' }],
      fetch,
    });
    try {
      const answerWithoutTemplate = await ask(blind.url);
      assert.match(answerWithoutTemplate.content, /my_call/);
    } finally {
      await blind.close();
    }
  });
});
