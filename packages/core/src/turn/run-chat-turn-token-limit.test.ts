import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatMessage, Tool } from '@toolbus/spec';
import * as z from 'zod';
import { useQueuedModelServer } from '../llm/__fixtures__/scripted-providers.ts';
import { resolveLanguageModel } from '../llm/resolve-language-model.ts';
import { chunkText, collectTurn, packetsOfType, textSteps } from '../testing/index.ts';
import { defineTool } from '../tool/define-tool.ts';
import { runChatTurn } from './run-chat-turn.ts';

// Calls written as text in one block (a Mistral `[TOOL_CALLS]` array) share the block's range: when the output
// token limit cuts the block, only its last call was still being written. The ones before it closed and run; the
// cut one is answered as cut off (the rule the gateway's repair reads too: `callCutByTokenLimit`).

const question: ChatMessage[] = [{ role: 'user', content: 'The time, and the weather in Paris?' }];

function tools(log: string[]): Tool[] {
  return [
    defineTool({
      name: 'get_time',
      description: 'The time',
      parameters: z.object({}),
      run: () => {
        log.push('time');
        return '12:00';
      },
    }),
    defineTool({
      name: 'get_weather',
      description: 'The weather in a city',
      parameters: z.object({ city: z.string() }),
      run: ({ city }) => {
        log.push(`weather:${city}`);
        return 'Sunny';
      },
    }),
  ];
}

describe('the token limit cuts a block of calls written as text', () => {
  const { server, queueWithFollowUp } = useQueuedModelServer();
  const model = () =>
    resolveLanguageModel(`openai-compatible:${server().url}/v1#mistral-small`, {
      env: { TOOLBUS_API_KEY: 'test-key' },
    });

  it('a Mistral array cut in its second call: the first runs, the second is answered as cut off', async () => {
    const written =
      '[TOOL_CALLS] [{"name": "get_time", "arguments": {}}, {"name": "get_weather", "arguments": {"city": "Par';
    const followUpOf = queueWithFollowUp(
      [...textSteps(chunkText(written, 5)), { type: 'finish', reason: 'length' }],
      textSteps(['It is noon.']),
    );
    const log: string[] = [];
    const { packets, result } = await collectTurn(
      runChatTurn({ model: model(), messages: question, tools: tools(log) }),
    );
    assert.deepEqual(log, ['time'], 'the whole call ran, the cut one did not');
    assert.deepEqual(
      result.toolOutcomes.map((outcome) => [outcome.call.name, outcome.status]),
      [
        ['get_time', 'success'],
        ['get_weather', 'call-error'],
      ],
    );
    const results = followUpOf()?.messages.flatMap((message) => message.toolResults) ?? [];
    assert.match(results[1]?.content ?? '', /cut off by the output token limit/);
    assert.deepEqual(
      packetsOfType(packets, 'error').map((packet) => packet.obj.code),
      ['tool_call_cut_off'],
    );
  });
});
