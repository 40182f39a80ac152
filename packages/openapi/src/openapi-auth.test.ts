import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestRunContext } from '@toolbus/core/testing';
import type { OpenApiAuth, Tool } from '@toolbus/spec';
import { type PetStore, startPetStore } from './__fixtures__/petstore-server.ts';
import { createOpenApiTools } from './create-openapi-tools.ts';
import { OpenApiAuthError } from './openapi-auth-error.ts';

let store: PetStore;

before(async () => {
  store = await startPetStore();
});
after(() => store.close());

async function toolsWith(auth: OpenApiAuth | readonly OpenApiAuth[]): Promise<Map<string, Tool>> {
  const list = await createOpenApiTools({ document: store.document(), fetch, auth });
  return new Map(list.map((tool) => [tool.name, tool]));
}

/** Runs a call and returns what the model and the UI got, and what the server received. */
async function call(tools: Map<string, Tool>, name: string, args: Record<string, unknown> = {}) {
  const tool = tools.get(name);
  assert.ok(tool);
  const { context, emitted: packets, call: toolCall } = createTestRunContext({ allowCitations: false });
  const response = await tool.run(toolCall(name, args), context);
  const request = store.requests.at(-1);
  assert.ok(request);
  return { seen: JSON.stringify({ response, packets, definition: tool.definition() }), request };
}

describe('stored credentials', () => {
  // Each credential reaches the API in its header, and its value never shows in what the model and the UI see.
  const inHeaders: ReadonlyArray<{
    readonly title: string;
    readonly auth: OpenApiAuth;
    readonly operation: string;
    readonly args?: Record<string, unknown>;
    readonly header: string;
    readonly sent: string;
    readonly secret: string;
  }> = [
    {
      title: 'an API key in a header, placed by the document scheme it names',
      auth: { type: 'api-key', value: 'key-in-header-123', scheme: 'apiKeyHeader' },
      operation: 'listPets',
      header: 'x-api-key',
      sent: 'key-in-header-123',
      secret: 'key-in-header-123',
    },
    {
      title: 'an API key with an explicit name and location needs no scheme',
      auth: { type: 'api-key', value: 'explicit-789', name: 'X-Custom-Key', in: 'header' },
      operation: 'getNotes',
      header: 'x-custom-key',
      sent: 'explicit-789',
      secret: 'explicit-789',
    },
    {
      title: 'a bearer token',
      auth: { type: 'bearer', token: 'bearer-token-abc' },
      operation: 'createPet',
      args: { body: { name: 'Tom' } },
      header: 'authorization',
      sent: 'Bearer bearer-token-abc',
      secret: 'bearer-token-abc',
    },
    {
      title: 'basic credentials',
      auth: { type: 'basic', username: 'ann', password: 'pässword-1', scheme: 'basicAuth' },
      operation: 'getNotes',
      header: 'authorization',
      sent: `Basic ${Buffer.from('ann:pässword-1').toString('base64')}`,
      secret: 'pässword-1',
    },
  ];
  for (const { title, auth, operation, args, header, sent, secret } of inHeaders) {
    test(title, async () => {
      const { request, seen } = await call(await toolsWith(auth), operation, args);
      assert.equal(request.headers[header], sent);
      assert.ok(!seen.includes(secret));
    });
  }

  test('an API key in the query; the model cannot set or see the key parameter', async () => {
    const tools = await toolsWith({ type: 'api-key', value: 'key-in-query-456', scheme: 'apiKeyQuery' });
    const { request, seen } = await call(tools, 'listPets', { limit: 2 });
    const url = new URL(request.url, 'http://x');
    assert.equal(url.searchParams.get('api_key'), 'key-in-query-456');
    assert.equal(url.searchParams.get('limit'), '2');
    assert.ok(!seen.includes('key-in-query-456'));
    const listPets = tools.get('listPets');
    assert.ok(listPets);
    const { context, call: toolCall } = createTestRunContext({ allowCitations: false });
    await assert.rejects(
      listPets.run(toolCall('listPets', { api_key: 'model-chosen' }), context),
      /api_key: unknown argument/,
    );
  });

  test('credentials the API echoes back are redacted from what the model and the UI see', async () => {
    const tools = await toolsWith([
      { type: 'bearer', token: 'echoed-token-1' },
      { type: 'api-key', value: 'echoed-key-2', scheme: 'apiKeyHeader' },
      { type: 'api-key', value: 'echoed-key-3', scheme: 'apiKeyQuery' },
    ]);
    const { request, seen } = await call(tools, 'echoCredentials');
    assert.equal(request.headers.authorization, 'Bearer echoed-token-1');
    assert.equal(request.headers['x-api-key'], 'echoed-key-2');
    for (const secret of ['echoed-token-1', 'echoed-key-2', 'echoed-key-3'])
      assert.ok(!seen.includes(secret), secret);
    assert.match(seen, /Bearer \[redacted\]/);
  });

  test('a credential failing the API is reported without its value', async () => {
    const tools = await toolsWith({ type: 'bearer', token: 'rejected-token-9' });
    const failWith = tools.get('failWith');
    assert.ok(failWith);
    const { context, call: toolCall } = createTestRunContext({ allowCitations: false });
    await assert.rejects(failWith.run(toolCall('failWith', { status: 401 }), context), (error: unknown) => {
      const text = `${(error as Error).message} ${(error as { modelMessage: string }).modelMessage}`;
      assert.ok(!text.includes('rejected-token-9'));
      assert.match(text, /configured by an administrator/);
      return true;
    });
  });

  test('credentials that do not fit the document fail closed, naming schemes, never values', async () => {
    const cases: [OpenApiAuth | OpenApiAuth[], RegExp][] = [
      [{ type: 'api-key', value: 'secret-a' }, /several apiKey schemes \(apiKeyHeader, apiKeyQuery\)/],
      [{ type: 'api-key', value: 'secret-b', scheme: 'nope' }, /no security scheme named "nope"/],
      [{ type: 'bearer', token: 'secret-c', scheme: 'apiKeyHeader' }, /does not take a bearer token/],
      [
        [
          { type: 'bearer', token: 'secret-d' },
          { type: 'basic', username: 'u', password: 'secret-e' },
        ],
        /same header "Authorization"/,
      ],
    ];
    for (const [auth, message] of cases) {
      await assert.rejects(
        createOpenApiTools({ document: store.document(), fetch, auth }),
        (error: unknown) => {
          assert.ok(OpenApiAuthError.isInstance(error));
          assert.match((error as Error).message, message);
          assert.ok(!(error as Error).message.includes('secret-'));
          return true;
        },
      );
    }
  });

  test('a stored credential header with a byte HTTP forbids is dropped and logged by name; the call still goes out', async () => {
    const forbidden = [
      ['above U+00FF', 'key-\u0100-secret'],
      ['DEL', 'key-\x7f-secret'],
      ['a control', 'key-\x01-secret'],
      ['a line break', 'key-secret\r\nX-Evil: 1'],
    ] as const;
    for (const [what, value] of forbidden) {
      const warnings: string[] = [];
      const list = await createOpenApiTools({
        document: store.document(),
        fetch,
        auth: [
          { type: 'api-key', value, name: 'X-Custom-Key', in: 'header' },
          { type: 'bearer', token: 'good-token-1' },
        ],
        logger: { warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields)}`) },
      });
      const tools = new Map(list.map((tool) => [tool.name, tool]));
      const { request } = await call(tools, 'getNotes');
      assert.equal(request.headers['x-custom-key'], undefined, what);
      assert.equal(request.headers.authorization, 'Bearer good-token-1', what);
      assert.equal(warnings.length, 1, what);
      assert.match(warnings[0] ?? '', /X-Custom-Key/, what);
      assert.match(warnings[0] ?? '', /invalid-value/, what);
      assert.ok(!warnings[0]?.includes('secret'), what);
      // The model still cannot fill the dropped credential's place.
      assert.ok(!JSON.stringify(tools.get('getNotes')?.definition()).includes('X-Custom-Key'), what);
    }
  });
});
