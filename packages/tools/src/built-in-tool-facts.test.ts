// The built-in tools declare what the runner needs to know of them (merging, stopping the turn, display name) on
// the tool itself, and show it in their own tool-start packet: nothing is looked up by name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BUILT_IN_TOOLS_BY_NAME, Emitter, runToolCalls } from '@toolbus/core';
import type { Tool } from '@toolbus/spec';
import { createGenerateImageTool } from './generate-image/generate-image-tool.ts';
import { openDocumentIndex } from './internal-search/document-index.ts';
import { createInternalSearchTool } from './internal-search/internal-search-tool.ts';
import { createOpenUrlTool } from './open-url/open-url-tool.ts';
import { createWebSearchTool } from './web-search/web-search-tool.ts';

const refusingFetch = async (): Promise<Response> => {
  throw new Error('no request is made in this test');
};

test('built-in tools declare stopsTurn and mergeableField themselves, and start with their display name', async () => {
  const index = await openDocumentIndex({ path: ':memory:' });
  try {
    const tools: Tool[] = [
      createInternalSearchTool({ index }),
      createWebSearchTool({
        provider: { name: 'none', search: async () => [] },
        fetch: refusingFetch,
      }),
      createOpenUrlTool({ fetch: refusingFetch }),
      createGenerateImageTool({
        fetch: refusingFetch,
        baseUrl: 'http://127.0.0.1:1/v1',
        model: 'm',
        fileStore: {
          save: async () => {
            throw new Error('nothing is saved in this test');
          },
        },
      }),
    ];
    assert.deepEqual(
      tools.map((tool) => [tool.name, tool.displayName, tool.mergeableField, tool.stopsTurn === true]),
      [
        ['internal_search', 'Internal Search', 'queries', false],
        ['web_search', 'Web Search', 'queries', false],
        ['open_url', 'Open URL', 'urls', false],
        ['generate_image', 'Image Generation', undefined, true],
      ],
    );
    // The table the persona editor reads names each tool as the tool itself does.
    for (const tool of tools)
      assert.equal(BUILT_IN_TOOLS_BY_NAME.get(tool.name)?.displayName, tool.displayName);
    const emitter = new Emitter();
    const starts: unknown[] = [];
    const original = emitter.emitAt.bind(emitter);
    emitter.emitAt = (placement, obj) => {
      if (obj.type === 'tool-start') starts.push([obj.toolName, obj.displayName]);
      original(placement, obj);
    };
    await runToolCalls({
      calls: tools.slice(0, 3).map((tool, tab) => ({
        id: `c${tab}`,
        name: tool.name,
        arguments: tool.mergeableField === 'urls' ? { urls: [] } : { queries: [] },
        placement: { turn: 0, tab },
      })),
      tools: tools,
      emitter,
    });
    assert.deepEqual(starts, [
      ['internal_search', 'Internal Search'],
      ['web_search', 'Web Search'],
      ['open_url', 'Open URL'],
    ]);
  } finally {
    await index.close();
  }
});
