import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { Persona, Storage, User } from '@toolbus/storage';
import { assertAssembled } from './__fixtures__/assert-assembled.ts';
import { constructTestTools, openAssemblyStorage } from './__fixtures__/construct-test-tools.ts';
import { builtInFactories, builtInTool, llmFacingOf } from './__fixtures__/test-tools.ts';
import type { ConstructToolsOptions } from './construct-tools.ts';

let storage: Storage;
let persona: Persona;
let user: User;

beforeEach(async () => {
  ({ storage, persona, user } = await openAssemblyStorage('Helper', 'user@example.com'));
});

async function addBuiltIns(...ids: string[]): Promise<string[]> {
  const rowIds: string[] = [];
  for (const builtInId of ids) {
    rowIds.push((await storage.personas.addToolRow(persona.id, { kind: 'built-in', builtInId })).id);
  }
  return rowIds;
}

function assemble(options: Partial<ConstructToolsOptions> = {}) {
  return constructTestTools({ persona, user, storage, ...options });
}

describe('built-in rows', () => {
  test('each row becomes its tool, keyed by row id, in row order', async () => {
    const [search, web] = await addBuiltIns('SearchTool', 'WebSearchTool');
    const assembly = await assemble();
    assert.deepEqual(
      assembly.tools.map((tool) => tool.name),
      ['internal_search', 'web_search'],
    );
    assert.deepEqual([...assembly.toolsByRowId.keys()], [search, web]);
    assert.equal(assembly.toolsByRowId.get(web!)?.[0]?.name, 'web_search');
    assert.deepEqual(assembly.skipped, []);
    assert.equal(await llmFacingOf(assembly.tools[1]!, { query: 'q' }), 'web_search ran with {"query":"q"}');
  });

  test('a throwing availability check means unavailable, not a failed assembly; false means unavailable too', async () => {
    await addBuiltIns('SearchTool', 'PythonTool', 'WebSearchTool');
    const checked: unknown[] = [];
    const assembly = await assemble({
      availabilityContext: { userId: user.id, region: 'eu' },
      builtInFactories: builtInFactories({
        PythonTool: () =>
          builtInTool({
            name: 'python',
            isAvailable: async (context) => {
              checked.push(context.region);
              throw new Error('health probe refused');
            },
          }),
        WebSearchTool: () => builtInTool({ name: 'web_search', isAvailable: () => false }),
      }),
    });
    assert.deepEqual(
      assembly.tools.map((tool) => tool.name),
      ['internal_search'],
    );
    assert.deepEqual(checked, ['eu']);
    assert.deepEqual(
      assembly.skipped.map((item) => [item.toolName, item.reason]),
      [
        ['PythonTool', 'availability-check-failed'],
        ['WebSearchTool', 'unavailable'],
      ],
    );
    assert.match(assembly.skipped[0]!.message, /health probe refused/);
  });

  test('an offered tool whose check later throws answers false instead of throwing', async () => {
    await addBuiltIns('PythonTool');
    let healthy = true;
    const assembly = await assemble({
      builtInFactories: builtInFactories({
        PythonTool: () =>
          builtInTool({
            name: 'python',
            isAvailable: () => {
              if (healthy) return true;
              throw new Error('down');
            },
          }),
      }),
    });
    const python = assembly.tools[0]!;
    assert.equal(await python.isAvailable({}), true);
    healthy = false;
    assert.equal(await python.isAvailable({}), false);
  });

  test('a throwing factory and an id without a factory are skipped with their reasons', async () => {
    await addBuiltIns('SearchTool', 'OpenURLTool', 'CodingAgentTool');
    const assembly = await assemble({
      builtInFactories: builtInFactories({
        OpenURLTool: () => {
          throw new Error('no crawler configured');
        },
      }),
    });
    assertAssembled(assembly, {
      tools: ['internal_search'],
      skippedBy: 'toolName',
      skipped: [
        ['OpenURLTool', 'factory-failed'],
        ['CodingAgentTool', 'unknown-built-in'],
      ],
    });
  });

  test('the factory sees the persona, user, row and availability context', async () => {
    const [rowId] = await addBuiltIns('WebSearchTool');
    const seen: string[] = [];
    await assemble({
      availabilityContext: { userId: 'ctx-user' },
      builtInFactories: builtInFactories({
        WebSearchTool: (context) => {
          seen.push(
            context.persona.id,
            context.user?.id ?? '',
            context.row?.id ?? '',
            String(context.availabilityContext.userId),
          );
          return builtInTool({ name: 'web_search' });
        },
      }),
    });
    assert.deepEqual(seen, [persona.id, user.id, rowId, 'ctx-user']);
  });
});

describe('whitelist, forced search and memory', () => {
  test('allowedToolIds keeps only the listed rows (by row id or built-in id)', async () => {
    const [search, , python] = await addBuiltIns('SearchTool', 'WebSearchTool', 'PythonTool');
    const byRow = await assemble({ allowedToolIds: [python!] });
    assertAssembled(byRow, {
      tools: ['python'],
      skippedBy: 'toolName',
      skipped: [
        ['SearchTool', 'not-allowed'],
        ['WebSearchTool', 'not-allowed'],
      ],
    });
    const byBuiltInId = await assemble({ allowedToolIds: ['WebSearchTool', search!] });
    assert.deepEqual(
      byBuiltInId.tools.map((tool) => tool.name),
      ['internal_search', 'web_search'],
    );
    const none = await assemble({ allowedToolIds: [] });
    assert.deepEqual(none.tools, []);
  });

  test('forced search adds internal_search when the persona lacks it, from the request, user or persona setting', async () => {
    await addBuiltIns('WebSearchTool');
    const plain = await assemble();
    assert.deepEqual(
      plain.tools.map((tool) => tool.name),
      ['web_search'],
    );
    const byRequest = await assemble({ searchUsage: 'enabled' });
    assert.deepEqual(
      byRequest.tools.map((tool) => tool.name),
      ['web_search', 'internal_search'],
    );
    assert.equal(byRequest.toolsByRowId.get('injected:SearchTool')?.[0]?.name, 'internal_search');
    await storage.personas.update(persona.id, { searchUsage: 'enabled' });
    persona = (await storage.personas.get(persona.id))!;
    assert.equal((await assemble()).tools.length, 2);
    // The user's explicit setting beats the persona's.
    user = await storage.users.update(user.id, { settings: { searchUsage: 'disabled' } });
    assert.deepEqual(
      (await assemble()).tools.map((tool) => tool.name),
      ['web_search'],
    );
  });

  test('forced search does not duplicate a persona search tool; disabled search drops it', async () => {
    await addBuiltIns('SearchTool', 'WebSearchTool');
    const forced = await assemble({ searchUsage: 'enabled' });
    assert.deepEqual(
      forced.tools.map((tool) => tool.name),
      ['internal_search', 'web_search'],
    );
    const disabled = await assemble({ searchUsage: 'disabled' });
    assert.deepEqual(
      disabled.tools.map((tool) => tool.name),
      ['web_search'],
    );
    assert.equal(disabled.skipped[0]?.reason, 'search-disabled');
  });

  test('the memory tool is injected when the user enabled it, bypassing persona and whitelist', async () => {
    const [web] = await addBuiltIns('WebSearchTool');
    assert.equal(
      (await assemble()).tools.some((tool) => tool.name === 'add_memory'),
      false,
    );
    user = await storage.users.update(user.id, { settings: { memoryToolEnabled: true } });
    const assembly = await assemble({ allowedToolIds: [web!] });
    assert.deepEqual(
      assembly.tools.map((tool) => tool.name),
      ['web_search', 'add_memory'],
    );
    const whitelistOfNothing = await assemble({ allowedToolIds: [] });
    assert.deepEqual(
      whitelistOfNothing.tools.map((tool) => tool.name),
      ['add_memory'],
    );
  });

  test('a persona memory row follows the user setting and is never doubled; anonymous users get none', async () => {
    await addBuiltIns('MemoryTool');
    const off = await assemble();
    assert.deepEqual(off.tools, []);
    assert.equal(off.skipped[0]?.reason, 'memory-disabled');
    user = await storage.users.update(user.id, { settings: { memoryToolEnabled: true } });
    assert.deepEqual(
      (await assemble()).tools.map((tool) => tool.name),
      ['add_memory'],
    );
    const anonymous = await constructTestTools({ persona, storage });
    assert.deepEqual(anonymous.tools, []);
  });

  test('the same built-in twice is offered once', async () => {
    await addBuiltIns('WebSearchTool', 'WebSearchTool');
    const assembly = await assemble();
    assert.deepEqual(
      assembly.tools.map((tool) => tool.name),
      ['web_search'],
    );
    assert.equal(assembly.skipped[0]?.reason, 'duplicate-built-in');
  });
});
