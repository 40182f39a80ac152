import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestRunContext, startLoopbackHttpServer } from '@toolbus/core/testing';
import { ToolCallError, ToolExecutionError } from '@toolbus/spec';
import { createOpenApiTools } from './create-openapi-tools.ts';
import { OpenApiDocumentError } from './openapi-document-error.ts';

const document = {
  openapi: '3.0.3',
  info: { title: 'Relative', version: '1' },
  servers: [{ url: '/v1' }],
  paths: {
    '/items/{id}': {
      get: {
        operationId: 'getItem',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'X-Note', in: 'header', schema: { type: 'string' } },
          { name: 'Bad Header', in: 'header', schema: { type: 'string' } },
          { name: 'Transfer-Encoding', in: 'header', schema: { type: 'string' } },
          { name: 'Expect', in: 'header', schema: { type: 'string' } },
          { name: 'Content-Type', in: 'header', schema: { type: 'string' } },
        ],
        responses: { '200': { description: 'ok' } },
      },
    },
  },
};

test('a relative server URL needs baseUrl: without it the call fails clearly, with it the URL is resolved', async () => {
  const server = await startLoopbackHttpServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' }).end('fine');
  });
  try {
    const { context, call: toolCall } = createTestRunContext({ allowCitations: false });
    const [withoutBase] = await createOpenApiTools({ document, fetch });
    assert.ok(withoutBase);
    await assert.rejects(withoutBase.run(toolCall('getItem', { id: '1' }), context), (error: unknown) => {
      assert.ok(ToolExecutionError.isInstance(error));
      assert.equal(error.code, 'openapi_no_server');
      return true;
    });

    const [withBase] = await createOpenApiTools({
      document,
      fetch,
      baseUrl: `${server.origin}/root`,
    });
    assert.ok(withBase);
    // A header name that is not an HTTP token, or a header the transport owns (framing, the body's type), is not offered.
    assert.deepEqual(Object.keys((withBase.definition().parameters as { properties: object }).properties), [
      'id',
      'X-Note',
    ]);
    const response = await withBase.run(toolCall('getItem', { id: 'a b' }), context);
    assert.equal(response.llmFacing, 'fine');
    assert.deepEqual(
      server.received.map((request) => request.url),
      ['/root/v1/items/a%20b'],
    );
    await assert.rejects(
      withBase.run(toolCall('getItem', { id: '1', 'X-Note': 'caf\u00e9 \u2615' }), context),
      (error: unknown) => ToolCallError.isInstance(error) && /Latin-1/.test(error.modelMessage),
    );
  } finally {
    await server.close();
  }
});

test('baseUrl must be an absolute http(s) URL', async () => {
  for (const baseUrl of ['not a url', 'file:///etc/', 'ftp://127.0.0.1/', 'http://user:hunter2@127.0.0.1/']) {
    await assert.rejects(
      createOpenApiTools({ document, fetch, baseUrl }),
      (error: unknown) => OpenApiDocumentError.isInstance(error) && !error.message.includes('hunter2'),
    );
  }
});

test('descriptions: summary and description both kept, said once when equal, capped at 1,024 characters', async () => {
  const operation = (summary: string, description: string) => ({
    summary,
    description,
    responses: { '200': { description: 'ok' } },
  });
  const tools = await createOpenApiTools({
    document: {
      openapi: '3.0.3',
      info: { title: 'Descriptions', version: '1' },
      servers: [{ url: 'https://api.example.test' }],
      paths: {
        '/a': {
          get: { operationId: 'prefix', ...operation('List pets', 'List pets in the store, newest first.') },
        },
        '/b': { get: { operationId: 'same', ...operation('Get a pet', 'Get a pet') } },
        '/c': { get: { operationId: 'long', deprecated: true, ...operation('', 'x'.repeat(3000)) } },
      },
    },
    fetch,
  });
  assert.deepEqual(
    tools.map((tool) =>
      tool.description.length > 200
        ? `${tool.description.slice(0, 3)}…${tool.description.length}`
        : tool.description,
    ),
    ['List pets\n\nList pets in the store, newest first.', 'Get a pet', '(De…1024'],
  );
});
