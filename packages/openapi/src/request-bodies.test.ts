import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  createTestRunContext,
  type LoopbackHttpServer,
  startLoopbackHttpServer,
} from '@toolbus/core/testing';
import type { Tool } from '@toolbus/spec';
import { createOpenApiTools } from './create-openapi-tools.ts';

// Request bodies other than JSON, on a Swagger 2.0 document (formData parameters) and an OpenAPI 3.1 one.

let flakyRequests = 0;
let server: LoopbackHttpServer;
let port = 0;

before(async () => {
  server = await startLoopbackHttpServer((request, response) => {
    if (request.url === '/flaky' && flakyRequests++ === 0) {
      // The first request finds its connection dropped, as a stale keep-alive socket would be.
      response.socket?.destroy();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  port = server.port;
});
after(() => server.close());

/** The last request the server received, its whole body read. */
const lastRequest = () => server.received.at(-1);

async function run(tools: Tool[], name: string, args: Record<string, unknown>) {
  const tool = tools.find((candidate) => candidate.name === name);
  assert.ok(tool, name);
  const { context, call: toolCall } = createTestRunContext({ allowCitations: false });
  return tool.run(toolCall(name, args), context);
}

test('Swagger 2.0: formData parameters become a form body; host, basePath and schemes make the URL', async () => {
  const document = {
    swagger: '2.0',
    info: { title: 'Forms', version: '1' },
    host: `127.0.0.1:${port}`,
    basePath: '/api',
    schemes: ['http'],
    paths: {
      '/login': {
        post: {
          operationId: 'login',
          consumes: ['application/x-www-form-urlencoded'],
          parameters: [
            { name: 'user', in: 'formData', type: 'string', required: true },
            { name: 'remember', in: 'formData', type: 'boolean' },
          ],
          responses: { '200': { description: 'ok' } },
        },
      },
      '/upload': {
        post: {
          operationId: 'upload',
          consumes: ['multipart/form-data'],
          parameters: [
            { name: 'file', in: 'formData', type: 'file', required: true },
            {
              name: 'tags',
              in: 'query',
              type: 'array',
              items: { type: 'string' },
              collectionFormat: 'pipes',
            },
          ],
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  };
  const tools = await createOpenApiTools({ document, fetch });
  const login = tools.find((tool) => tool.name === 'login')?.definition().parameters;
  assert.deepEqual(login, {
    type: 'object',
    properties: {
      body: {
        type: 'object',
        properties: { user: { type: 'string' }, remember: { type: 'boolean' } },
        required: ['user'],
        description: 'Request body (application/x-www-form-urlencoded).',
      },
    },
    required: ['body'],
  });
  await run(tools, 'login', { body: { user: 'ann smith', remember: true } });
  let request = lastRequest();
  assert.equal(request?.url, '/api/login');
  assert.match(String(request?.headers['content-type']), /^application\/x-www-form-urlencoded/);
  assert.equal(request?.body, 'user=ann+smith&remember=true');

  await run(tools, 'upload', { body: { file: 'a,b\n1,2\n' }, tags: ['x', 'y'] });
  request = lastRequest();
  assert.equal(request?.url, '/api/upload?tags=x%7Cy');
  assert.match(String(request?.headers['content-type']), /^multipart\/form-data; boundary=/);
  assert.match(
    request?.body ?? '',
    /name="file"; filename="file"\r\nContent-Type: application\/octet-stream\r\n\r\na,b\n1,2\n\r\n/,
  );
});

test('OpenAPI 3.1: a text body is sent as written; a read whose connection dropped is sent again once', async () => {
  const document = {
    openapi: '3.1.0',
    info: { title: 'Text', version: '1' },
    servers: [{ url: `http://127.0.0.1:${port}` }],
    paths: {
      '/render': {
        post: {
          operationId: 'render',
          requestBody: { required: true, content: { 'text/x-markdown': { schema: { type: 'string' } } } },
          responses: { '200': { description: 'ok' } },
        },
      },
      '/flaky': { get: { operationId: 'flaky', responses: { '200': { description: 'ok' } } } },
    },
  };
  const tools = await createOpenApiTools({ document, fetch });
  await run(tools, 'render', { body: '# Title\n\nText.' });
  const request = lastRequest();
  assert.equal(request?.headers['content-type'], 'text/x-markdown');
  assert.equal(request?.body, '# Title\n\nText.');

  const response = await run(tools, 'flaky', {});
  assert.equal(flakyRequests, 2);
  assert.deepEqual(response.rich, {
    type: 'custom-tool',
    responseType: 'json',
    data: { ok: true },
    files: [],
  });
});
