import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { GuardedFetchError } from '@toolbus/core';
import { createGuardedFetch } from '@toolbus/core/node';
import { createTestRunContext } from '@toolbus/core/testing';
import { type PetStore, startPetStore } from './__fixtures__/petstore-server.ts';
import { createOpenApiTools } from './create-openapi-tools.ts';

// The application passes the SSRF-guarded fetch; the tools work through it unchanged, and its refusals surface.

let store: PetStore;
before(async () => {
  store = await startPetStore();
});
after(() => store.close());

test('through the guarded fetch with loopback allowed: calls, bodies and same-origin redirects work', async () => {
  const guarded = createGuardedFetch({ level: 'strict', allow: ['127.0.0.1/32'] });
  try {
    const tools = await createOpenApiTools({
      document: store.document(),
      fetch: guarded,
      auth: { type: 'bearer', token: 'tk-guarded' },
    });
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const { context, call: toolCall } = createTestRunContext({ allowCitations: false });
    const created = await byName
      .get('createPet')
      ?.run(toolCall('createPet', { body: { name: 'Tom' } }), context);
    assert.deepEqual(created?.rich, {
      type: 'custom-tool',
      responseType: 'json',
      data: { id: '2', name: 'Tom' },
      files: [],
    });
    assert.equal(store.requests.at(-1)?.headers.authorization, 'Bearer tk-guarded');
    const moved = await byName.get('getMoved')?.run(toolCall('getMoved', {}), context);
    assert.equal(moved?.llmFacing, 'Feed the cat at six.');
  } finally {
    await guarded.close();
  }
});

test('through the strict guarded fetch without the allowance: the loopback server is refused, never reached', async () => {
  const guarded = createGuardedFetch({ level: 'strict' });
  try {
    const tools = await createOpenApiTools({ document: store.document(), fetch: guarded });
    const notes = tools.find((tool) => tool.name === 'getNotes');
    assert.ok(notes);
    const before = store.requests.length;
    const { context, call: toolCall } = createTestRunContext({ allowCitations: false });
    await assert.rejects(
      notes.run(toolCall('getNotes', {}), context),
      (error: unknown) => GuardedFetchError.isInstance(error) && error.code === 'ssrf_blocked',
    );
    assert.equal(store.requests.length, before);
  } finally {
    await guarded.close();
  }
});
