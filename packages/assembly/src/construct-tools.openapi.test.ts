import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createTestRunContext } from '@toolbus/core/testing';
import { ToolCallError, toolNamePattern } from '@toolbus/spec';
import type { Persona, Storage, User } from '@toolbus/storage';
import { constructTestTools, openAssemblyStorage } from './__fixtures__/construct-test-tools.ts';
import { type PetsApi, startPetsApi } from './__fixtures__/pets-api.ts';
import { createToolAssemblyCache } from './tool-assembly-cache.ts';

const namePattern = toolNamePattern;
let api: PetsApi;
let storage: Storage;
let persona: Persona;
let user: User;

before(async () => {
  api = await startPetsApi();
});
after(async () => {
  await api.close();
});
beforeEach(async () => {
  ({ storage, persona, user } = await openAssemblyStorage('Pets helper', 'p@example.com'));
});

function assemble(extra: { cache?: ReturnType<typeof createToolAssemblyCache> } = {}) {
  return constructTestTools({ persona, user, storage, ...extra });
}

describe('OpenAPI rows', () => {
  test('one tool per operation with sanitised operation ids (method and path without one), calling the API with the stored auth', async () => {
    const row = await storage.personas.addToolRow(persona.id, {
      kind: 'openapi',
      name: 'Pets',
      document: api.document,
      auth: { type: 'bearer', token: api.token },
    });
    const assembly = await assemble();
    const tools = assembly.toolsByRowId.get(row.id) ?? [];
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['get_pet_by-id', 'get_health'],
    );
    for (const tool of tools) assert.match(tool.definition().name, namePattern);
    const getPet = tools[0]!;
    // The credential is never part of what the model sees.
    assert.equal(JSON.stringify(getPet.definition()).includes(api.token), false);
    const { context, call } = createTestRunContext();
    const response = await getPet.run(call(getPet.name, { petId: '1' }), context);
    assert.match(response.llmFacing, /Rex/);
    assert.equal(api.authorizations.at(-1), `Bearer ${api.token}`);
    await assert.rejects(getPet.run(call(getPet.name, { petId: '99' }), context), (error: unknown) =>
      ToolCallError.isInstance(error),
    );
  });

  test('two documents with the same operation ids never share a name in one assembly; an invalid one is skipped', async () => {
    await storage.personas.addToolRow(persona.id, { kind: 'built-in', builtInId: 'WebSearchTool' });
    const first = await storage.personas.addToolRow(persona.id, {
      kind: 'openapi',
      name: 'A',
      document: api.document,
    });
    const second = await storage.personas.addToolRow(persona.id, {
      kind: 'openapi',
      name: 'B',
      document: api.document,
    });
    const broken = await storage.personas.addToolRow(persona.id, {
      kind: 'openapi',
      name: 'Broken',
      document: { openapi: '3.0.3', info: { title: 'x', version: '1' } },
    });
    const assembly = await assemble();
    const names = assembly.tools.map((tool) => tool.name);
    assert.deepEqual(names, ['web_search', 'get_pet_by-id', 'get_health', 'get_pet_by-id_2', 'get_health_2']);
    assert.equal(new Set(names).size, names.length);
    // The renamed tool's definition carries the new name, and it still calls the API.
    const renamed = assembly.toolsByRowId.get(second.id)![0]!;
    assert.equal(renamed.definition().name, 'get_pet_by-id_2');
    const { context, emitted, call } = createTestRunContext();
    const renamedCall = call(renamed.name, { petId: '1' });
    renamed.emitStart(context.placement, context.emitter, renamedCall);
    await renamed.run(renamedCall, context).catch(() => undefined);
    const named = emitted.filter((packet) => 'toolName' in packet);
    assert.ok(named.length > 0);
    // The UI sees the name the model used, not the one the OpenAPI builder gave before renaming.
    for (const packet of named) assert.equal((packet as { toolName: string }).toolName, 'get_pet_by-id_2');
    assert.equal(assembly.toolsByRowId.get(first.id)?.length, 2);
    assert.deepEqual(
      assembly.skipped.map((item) => [item.rowId, item.reason]),
      [[broken.id, 'openapi-failed']],
    );
  });

  test('with a cache, the parsed document is reused across assemblies (keyed by content)', async () => {
    await storage.personas.addToolRow(persona.id, { kind: 'openapi', name: 'Pets', document: api.document });
    const cache = createToolAssemblyCache();
    const first = await assemble({ cache });
    assert.equal(cache.size.documents, 1);
    const second = await assemble({ cache });
    assert.equal(cache.size.documents, 1);
    assert.deepEqual(
      second.tools.map((tool) => tool.name),
      first.tools.map((tool) => tool.name),
    );
    const otherPersona = await storage.personas.create({ name: 'Other' });
    await storage.personas.addToolRow(otherPersona.id, {
      kind: 'openapi',
      name: 'Changed',
      document: { ...api.document, info: { title: 'Pets v2', version: '2.0.0' } },
    });
    await constructTestTools({
      persona: otherPersona,
      storage,
      cache,
    });
    assert.equal(cache.size.documents, 2);
    await cache.close();
  });
});
