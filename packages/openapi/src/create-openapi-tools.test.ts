import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestRunContext } from '@toolbus/core/testing';
import { type Tool, ToolCallError } from '@toolbus/spec';
import { type PetStore, pngBytes, startPetStore } from './__fixtures__/petstore-server.ts';
import { createOpenApiTools } from './create-openapi-tools.ts';
import { createMemoryFileStore } from './file-store.ts';
import { OpenApiHttpError } from './openapi-http-error.ts';

let store: PetStore;
let tools: Map<string, Tool>;
const fileStore = createMemoryFileStore();

before(async () => {
  store = await startPetStore();
  const list = await createOpenApiTools({ document: store.document(), fetch, fileStore });
  tools = new Map(list.map((tool) => [tool.name, tool]));
});
after(() => store.close());

function tool(name: string): Tool {
  const found = tools.get(name);
  assert.ok(found, `tool ${name} exists (have: ${[...tools.keys()].join(', ')})`);
  return found;
}

function lastRequest() {
  const request = store.requests.at(-1);
  assert.ok(request, 'the server received a request');
  return request;
}

describe('tool definitions from the pet store document', () => {
  test('one tool per operation, named after operationIds or method and path', () => {
    assert.deepEqual([...tools.keys()].sort(), [
      'createPet',
      'delete_pets_petId',
      'echoCredentials',
      'failWith',
      'getAway',
      'getBig',
      'getMoved',
      'getNotes',
      'getPetById',
      'getPetPhoto',
      'getReport',
      'getSlow',
      'listPets',
    ]);
    assert.equal(
      tool('listPets').description,
      'List pets\n\nLists the pets in the store, filtered by tag and status.',
    );
    assert.equal(tool('listPets').concurrency, 'parallel');
    assert.equal(tool('createPet').concurrency, 'serial');
  });

  test('query and header parameters are offered, credentials and auth headers are not', () => {
    const parameters = tool('listPets').definition().parameters as {
      properties: Record<string, { type?: string }>;
    };
    assert.deepEqual(Object.keys(parameters.properties), [
      'limit',
      'tags',
      'status',
      'filter_name_',
      'X-Request-Id',
    ]);
    assert.deepEqual(parameters.properties.tags, {
      type: 'array',
      items: { type: 'string' },
      description: 'Tags to filter by (repeated).',
    });
    assert.deepEqual(parameters.properties.status, { type: 'string', enum: ['available', 'sold'] });
  });

  test('path-level parameters are merged and required; the body sits under "body" with its own required list', () => {
    const get = tool('getPetById').definition().parameters;
    assert.deepEqual(get.required, ['petId']);
    const create = tool('createPet').definition().parameters as {
      required: string[];
      properties: { body: { required: string[]; properties: Record<string, unknown> } };
    };
    assert.deepEqual(create.required, ['body']);
    assert.deepEqual(create.properties.body.required, ['name']);
    // allOf merged; the readOnly id is not something a client sends.
    assert.deepEqual(Object.keys(create.properties.body.properties).sort(), ['age', 'name', 'owner', 'tag']);
    // The recursive Person schema ends in {} where it would repeat.
    assert.deepEqual(create.properties.body.properties.owner, {
      type: 'object',
      properties: { name: { type: 'string' }, friends: { type: 'array', items: {} } },
    });
    assert.ok(!JSON.stringify(create).includes('$ref'));
  });
});

describe('calls against the loopback server', () => {
  test('path, query and header parameters arrive encoded as the document says', async () => {
    const { context, call: toolCall } = createTestRunContext({ allowCitations: false });
    await tool('listPets').run(
      toolCall('listPets', {
        limit: '5',
        tags: ['red dog', 'b&w'],
        status: 'available',
        filter_name_: 'Rex',
        'X-Request-Id': 'trace-1',
      }),
      context,
    );
    const request = lastRequest();
    assert.equal(request.method, 'GET');
    assert.equal(
      request.url,
      '/v1/pets?limit=5&tags=red+dog&tags=b%26w&status=available&filter%5Bname%5D=Rex',
    );
    assert.equal(request.headers['x-request-id'], 'trace-1');

    await tool('getPetById').run(toolCall('getPetById', { petId: 'a/b c', ids: [1, 2, 3] }), context);
    const second = lastRequest();
    assert.equal(second.url.split('?')[0], '/v1/pets/a%2Fb%20c');
    assert.equal(new URL(second.url, 'http://x').searchParams.get('ids'), '1,2,3');
  });

  test('a JSON body arrives as JSON and the JSON answer reaches the model and the UI', async () => {
    const { context, emitted: packets, call: toolCall } = createTestRunContext({ allowCitations: false });
    const call = toolCall('createPet', { body: { name: 'Tom', age: 3, owner: { name: 'Ann' } } });
    const response = await tool('createPet').run(call, context);
    const request = lastRequest();
    assert.equal(request.method, 'POST');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(request.body), { name: 'Tom', age: 3, owner: { name: 'Ann' } });
    const expected = { id: '2', name: 'Tom', age: 3, owner: { name: 'Ann' } };
    assert.equal(response.llmFacing, JSON.stringify(expected, null, 2));
    assert.deepEqual(response.rich, { type: 'custom-tool', responseType: 'json', data: expected, files: [] });
    assert.deepEqual(packets, [
      {
        type: 'custom-tool-delta',
        toolCallId: call.id,
        toolName: 'createPet',
        responseType: 'json',
        data: expected,
        files: [],
      },
    ]);
  });

  test('invalid arguments fail before anything is sent, with a correct example call', async () => {
    const { context, call: toolCall } = createTestRunContext({ allowCitations: false });
    const before = store.requests.length;
    await assert.rejects(
      tool('getPetById').run(toolCall('getPetById', { ids: [1] }), context),
      (error: unknown) => {
        assert.ok(ToolCallError.isInstance(error));
        assert.equal(error.code, 'invalid_arguments');
        assert.match(error.modelMessage, /petId: is required/);
        assert.match(
          error.modelMessage,
          /Call it like this: \{"name":"getPetById","arguments":\{"petId":"[^"]+"\}\}/,
        );
        return true;
      },
    );
    await assert.rejects(
      tool('createPet').run(toolCall('createPet', { name: 'Tom' }), context),
      (error: unknown) => {
        assert.ok(ToolCallError.isInstance(error));
        assert.match(error.modelMessage, /name: unknown argument \(request body fields go inside "body"\)/);
        assert.match(error.modelMessage, /body: is required/);
        return true;
      },
    );
    await assert.rejects(
      tool('createPet').run(toolCall('createPet', { body: { tag: 'x', age: -1 } }), context),
      (error: unknown) => {
        assert.ok(ToolCallError.isInstance(error));
        assert.match(error.modelMessage, /body\.name: is required/);
        assert.match(error.modelMessage, /body\.age: must be >= 0/);
        return true;
      },
    );
    await assert.rejects(
      tool('listPets').run(toolCall('listPets', { status: 'lost', limit: 500 }), context),
      /limit: must be <= 100\n- status: must be one of "available", "sold"/,
    );
    await assert.rejects(
      tool('getPetById').run(toolCall('getPetById', { petId: '..' }), context),
      (error: unknown) => ToolCallError.isInstance(error),
    );
    await assert.rejects(
      tool('listPets').run(toolCall('listPets', { 'X-Request-Id': 'a\r\nX-Injected: 1' }), context),
      (error: unknown) => ToolCallError.isInstance(error),
    );
    assert.equal(store.requests.length, before, 'nothing reached the server');
  });

  test('text answers are text; 204 answers say so', async () => {
    const { context, call: toolCall } = createTestRunContext({ allowCitations: false });
    const notes = await tool('getNotes').run(toolCall('getNotes', {}), context);
    assert.equal(notes.llmFacing, 'Feed the cat at six.');
    assert.deepEqual(notes.rich, {
      type: 'custom-tool',
      responseType: 'text',
      data: 'Feed the cat at six.',
      files: [],
    });
    const deleted = await tool('delete_pets_petId').run(
      toolCall('delete_pets_petId', { petId: '7' }),
      context,
    );
    assert.equal(lastRequest().method, 'DELETE');
    assert.match(deleted.llmFacing, /204 with an empty body/);
  });

  test('CSV and images are kept as files, referenced from the rich response', async () => {
    const { context, emitted: packets, call: toolCall } = createTestRunContext({ allowCitations: false });
    const report = await tool('getReport').run(toolCall('getReport', {}), context);
    assert.ok(report.rich?.type === 'custom-tool');
    assert.equal(report.rich.responseType, 'csv');
    const csvFile = report.rich.files[0];
    assert.ok(csvFile);
    assert.equal(csvFile.mediaType, 'text/csv');
    assert.equal(
      new TextDecoder().decode(fileStore.get(csvFile.fileId)?.bytes),
      'month,sales\njanuary,10\nfebruary,12\n',
    );
    assert.match(report.llmFacing, /CSV file .*file id .*First lines:\nmonth,sales\njanuary,10/s);

    const photo = await tool('getPetPhoto').run(toolCall('getPetPhoto', { petId: '1' }), context);
    assert.ok(photo.rich?.type === 'custom-tool');
    assert.equal(photo.rich.responseType, 'image');
    const image = photo.rich.files[0];
    assert.ok(image);
    assert.equal(image.mediaType, 'image/png');
    assert.equal(image.name, 'rex.png', 'the hostile file name lost its directories');
    assert.deepEqual(Buffer.from(fileStore.get(image.fileId)?.bytes ?? []), pngBytes);
    assert.ok(!photo.llmFacing.includes('iVBOR'), 'no image bytes in the model text');
    assert.deepEqual(
      packets.map((packet) => (packet.type === 'custom-tool-delta' ? packet.responseType : packet.type)),
      ['csv', 'image'],
    );
  });

  test('non-2xx answers become ToolCallErrors with the status, a short body and advice for the model', async () => {
    const { context, emitted: packets, call: toolCall } = createTestRunContext({ allowCitations: false });
    await assert.rejects(
      tool('getPetById').run(toolCall('getPetById', { petId: 'missing' }), context),
      (error: unknown) => {
        assert.ok(OpenApiHttpError.isInstance(error));
        assert.ok(ToolCallError.isInstance(error));
        assert.equal(error.status, 404);
        assert.match(error.message, /GET http:\/\/127\.0\.0\.1:\d+\/v1\/pets\/missing failed with HTTP 404/);
        assert.match(error.modelMessage, /HTTP 404 .*Pet not found/s);
        assert.match(error.modelMessage, /check the path arguments/);
        return true;
      },
    );
    await assert.rejects(
      tool('failWith').run(toolCall('failWith', { status: 422 }), context),
      (error: unknown) => {
        assert.ok(OpenApiHttpError.isInstance(error));
        assert.equal(error.status, 422);
        assert.match(error.modelMessage, /call again with corrected arguments/);
        assert.ok(error.modelMessage.length < 1200, 'the 5 KB body was shortened');
        return true;
      },
    );
    await assert.rejects(
      tool('failWith').run(toolCall('failWith', { status: 503 }), context),
      (error: unknown) => {
        assert.ok(OpenApiHttpError.isInstance(error));
        assert.match(error.modelMessage, /do not retry repeatedly/);
        return true;
      },
    );
    assert.deepEqual(packets, []);
  });

  test('an oversize JSON answer is cut at maxResponseBytes with a note', async () => {
    const small = await createOpenApiTools({ document: store.document(), fetch, maxResponseBytes: 10_000 });
    const big = small.find((candidate) => candidate.name === 'getBig');
    assert.ok(big);
    const { context, call: toolCall } = createTestRunContext({ allowCitations: false });
    const response = await big.run(toolCall('getBig', {}), context);
    const [shown, note] = response.llmFacing.split('\n[truncated:');
    assert.equal(Buffer.byteLength(shown ?? ''), 10_000);
    assert.match(note ?? '', /longer than 10000 bytes.*pagination/);
    assert.ok(shown?.startsWith('[{"id":0,"name":"pet number 0"}'));
    assert.ok(response.rich?.type === 'custom-tool' && response.rich.responseType === 'json');
  });

  test('aborting the call aborts the request', async () => {
    const controller = new AbortController();
    const { context, call: toolCall } = createTestRunContext({
      signal: controller.signal,
      allowCitations: false,
    });
    const running = tool('getSlow').run(toolCall('getSlow', {}), context);
    while (!store.requests.some((request) => request.url === '/v1/slow'))
      await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    await assert.rejects(running, (error: unknown) => (error as Error).name === 'AbortError');
    await store.slowAborted;
  });

  test('redirects: same origin followed, another origin refused while credentials are configured', async () => {
    const { context, call: toolCall } = createTestRunContext({ allowCitations: false });
    const moved = await tool('getMoved').run(toolCall('getMoved', {}), context);
    assert.equal(moved.llmFacing, 'Feed the cat at six.');
    const withoutCredentials = await tool('getAway').run(toolCall('getAway', {}), context);
    assert.equal(withoutCredentials.llmFacing, 'Feed the cat at six.');
    assert.equal(lastRequest().headers.host, `localhost:${store.port}`);

    const guarded = await createOpenApiTools({
      document: store.document(),
      fetch,
      auth: { type: 'bearer', token: 'tok-1234' },
    });
    const away = guarded.find((candidate) => candidate.name === 'getAway');
    assert.ok(away);
    const before = store.requests.length;
    await assert.rejects(away.run(toolCall('getAway', {}), context), { code: 'openapi_redirect_refused' });
    assert.equal(store.requests.length, before + 1, 'the other origin was never asked');
  });
});
