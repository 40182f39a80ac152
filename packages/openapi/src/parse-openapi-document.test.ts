import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startLoopbackHttpServer } from '@toolbus/core/testing';
import { createOpenApiTools } from './create-openapi-tools.ts';
import { OpenApiDocumentError } from './openapi-document-error.ts';
import { parseOpenApiDocument } from './parse-openapi-document.ts';

const minimal = {
  openapi: '3.1.0',
  info: { title: 'Minimal', version: '1' },
  servers: [{ url: 'https://api.example.test' }],
  paths: { '/things': { get: { operationId: 'listThings', responses: { '200': { description: 'ok' } } } } },
};

async function rejectsWithDocumentError(input: Parameters<typeof parseOpenApiDocument>[0], message: RegExp) {
  await assert.rejects(parseOpenApiDocument(input), (error: unknown) => {
    assert.ok(OpenApiDocumentError.isInstance(error), String(error));
    assert.match((error as Error).message, message);
    return true;
  });
}

test('JSON and YAML text parse to the same document', async () => {
  const fromJson = await parseOpenApiDocument(JSON.stringify(minimal));
  const yaml = `openapi: 3.1.0\ninfo: {title: Minimal, version: '1'}\nservers: [{url: 'https://api.example.test'}]\npaths:\n  /things:\n    get: {operationId: listThings, responses: {'200': {description: ok}}}\n`;
  const fromYaml = await parseOpenApiDocument(yaml);
  assert.equal(fromJson.specification, 'openapi-3.1');
  assert.deepEqual(fromYaml.document, fromJson.document);
});

test('bad documents throw OpenApiDocumentError with a readable message', async () => {
  await rejectsWithDocumentError('{ "openapi": ', /neither valid JSON nor valid YAML/);
  await rejectsWithDocumentError('- just\n- a list\n', /must be an object/);
  await rejectsWithDocumentError({ info: {} }, /neither an "openapi" nor a "swagger"/);
  await rejectsWithDocumentError({ ...minimal, openapi: '4.0.0' }, /4\.0\.0" is not supported/);
  await rejectsWithDocumentError({ swagger: '1.2', paths: {} }, /only 2\.0/);
  await rejectsWithDocumentError({ ...minimal, info: { version: '1' } }, /title/);
  const missingReference = structuredClone(minimal) as Record<string, unknown>;
  (missingReference.paths as Record<string, unknown>)['/things'] = {
    get: { operationId: 'x', responses: { '200': { $ref: '#/components/responses/Nope' } } },
  };
  await rejectsWithDocumentError(missingReference, /Nope|resolve|reference/i);
});

test('a string is a document, never a file path or URL to open', async () => {
  await rejectsWithDocumentError('/etc/passwd', /must be an object|not an OpenAPI document/);
});

test('external references are not fetched (a document is untrusted)', async () => {
  const server = await startLoopbackHttpServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"type":"string"}');
  });
  try {
    const document = structuredClone(minimal) as Record<string, unknown>;
    (document.paths as Record<string, unknown>)['/things'] = {
      post: {
        operationId: 'createThing',
        requestBody: {
          content: { 'application/json': { schema: { $ref: `${server.origin}/schema.json` } } },
        },
        responses: { '200': { description: 'ok' } },
      },
    };
    const tools = await createOpenApiTools({ document, fetch });
    assert.equal(server.received.length, 0);
    const parameters = tools[0]?.definition().parameters as { properties: { body: Record<string, unknown> } };
    assert.ok(!JSON.stringify(parameters).includes('$ref'));
    assert.deepEqual(parameters.properties.body, { description: 'Request body (application/json).' });
  } finally {
    await server.close();
  }
});

test('a parsed document is reused as is: the same tools, without parsing again', async () => {
  const parsed = await parseOpenApiDocument(minimal);
  const first = await createOpenApiTools({ document: parsed, fetch });
  const second = await createOpenApiTools({ document: parsed, fetch, namePrefix: 'other' });
  assert.deepEqual(
    first.map((tool) => tool.name),
    ['listThings'],
  );
  assert.deepEqual(
    second.map((tool) => tool.name),
    ['other_listThings'],
  );
});

test('validation can be turned off for documents with harmless mistakes', async () => {
  const sloppy = structuredClone(minimal) as Record<string, unknown>;
  (sloppy.paths as Record<string, Record<string, Record<string, unknown>>>)['/things']!.get!.responses = {};
  await rejectsWithDocumentError(sloppy, /responses/);
  const tools = await createOpenApiTools({ document: sloppy, fetch, validate: false });
  assert.equal(tools.length, 1);
});
