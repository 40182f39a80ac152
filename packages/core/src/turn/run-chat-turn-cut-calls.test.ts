import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatMessage, Tool } from '@toolbus/spec';
import * as z from 'zod';
import { useQueuedModelServer } from '../llm/__fixtures__/scripted-providers.ts';
import { resolveLanguageModel } from '../llm/resolve-language-model.ts';
import { chunkText, collectTurn, packetsOfType, textSteps } from '../testing/index.ts';
import { defineTool } from '../tool/define-tool.ts';
import { runChatTurn } from './run-chat-turn.ts';

// A model profile's dialects are tried first over the whole answer: when they find a call, a call the answer
// filter cut from a line while streaming (read there with every dialect) must still run, or its text would be
// neither shown nor called.

const question: ChatMessage[] = [{ role: 'user', content: 'Refunds, and the time in Oslo?' }];

function tools(log: string[]): Tool[] {
  return [
    defineTool({
      name: 'internal_search',
      description: 'Search the company documents',
      parameters: z.object({ queries: z.array(z.string()) }),
      run: ({ queries }) => {
        log.push(`search:${queries.join('|')}`);
        return 'Refunds take 14 days.';
      },
    }),
    defineTool({
      name: 'get_time',
      description: 'Time in a zone',
      parameters: z.object({ tz: z.string() }),
      run: ({ tz }) => {
        log.push(`time:${tz}`);
        return '12:00';
      },
    }),
  ];
}

describe('a call the answer filter cut while streaming is never lost', () => {
  const { server, queueWithFollowUp } = useQueuedModelServer();
  // The model id picks Qwen's profile: Hermes' `<tool_call>` is read first, alone.
  const qwen = () =>
    resolveLanguageModel(`openai-compatible:${server().url}/v1#Qwen/Qwen2.5-7B-Instruct`, {
      env: { TOOLBUS_API_KEY: 'test-key' },
    });

  for (const written of [
    'Searching.\n[internal_search(queries=[\'refunds\'])]\nAnd the time:\n<tool_call>{"name": "get_time", "arguments": {"tz": "CET"}}</tool_call>',
    'Searching.\n{"name": "internal_search", "arguments": {"queries": ["refunds"]}}\n<tool_call>{"name": "get_time", "arguments": {"tz": "CET"}}</tool_call>',
  ]) {
    it(`runs both calls: ${JSON.stringify(written.slice(11, 40))}…`, async () => {
      queueWithFollowUp(textSteps(chunkText(written, 5)), textSteps(['Both done.']));
      const log: string[] = [];
      const { packets, result } = await collectTurn(
        runChatTurn({ model: qwen(), messages: question, tools: tools(log) }),
      );
      assert.equal(result.error, undefined, result.error?.message);
      assert.deepEqual(log.sort(), ['search:refunds', 'time:CET']);
      const shown = packetsOfType(packets, 'message-delta')
        .map((packet) => packet.obj.content)
        .join('');
      assert.doesNotMatch(shown, /internal_search|get_time/, 'no call was shown');
    });
  }
});
