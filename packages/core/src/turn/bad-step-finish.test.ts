import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatMessage, Packet, Tool } from '@toolbus/spec';
import * as z from 'zod';
import {
  scriptedModel,
  scriptedProviders,
  useQueuedModelServer,
} from '../llm/__fixtures__/scripted-providers.ts';
import type { ScriptedStep } from '../testing/index.ts';
import { textSteps } from '../testing/index.ts';
import { defineTool } from '../tool/define-tool.ts';
import { stepEndedBadly, UNRUN_TOOL_CALL_CODE } from './cut-off-tool-calls.ts';
import { runChatTurn } from './run-chat-turn.ts';

// A step that ends with content-filter (or error, or a reason the provider does not give) is not to be trusted:
// its calls are answered without running, as calls the token limit cut off are, and a call that started while
// the step was still streaming is stopped.

const question: ChatMessage[] = [{ role: 'user', content: 'Delete the old records.' }];

function tools(log: string[]): Tool[] {
  return [
    defineTool({
      name: 'delete_records',
      description: 'Delete records',
      parameters: z.object({ before: z.string() }),
      run: ({ before }) => {
        log.push(`deleted before ${before}`);
        return 'deleted';
      },
    }),
    defineTool({
      name: 'wait_for_signal',
      description: 'Runs until stopped',
      parameters: z.object({}),
      run: (_arguments, context) =>
        new Promise<string>((resolve) => {
          log.push('started');
          context.signal.addEventListener('abort', () => {
            log.push('stopped');
            resolve('stopped');
          });
        }),
    }),
  ];
}

describe('stepEndedBadly', () => {
  it('is true for content-filter, error and other only', () => {
    for (const reason of ['content-filter', 'error', 'other'] as const)
      assert.equal(stepEndedBadly(reason), true);
    for (const reason of ['stop', 'length', 'tool-calls', undefined] as const) {
      assert.equal(stepEndedBadly(reason), false);
    }
  });
});

for (const provider of scriptedProviders) {
  describe(`a step that ended with content-filter over ${provider}`, () => {
    const { server, queueWithFollowUp } = useQueuedModelServer();

    async function run(first: ScriptedStep[]) {
      const log: string[] = [];
      const followUpOf = queueWithFollowUp(first, textSteps(['I will not do that.']));
      const turn = runChatTurn({
        model: scriptedModel({ provider, serverUrl: server().url }),
        messages: question,
        tools: tools(log),
      });
      const packets: Packet[] = [];
      for await (const packet of turn) packets.push(packet);
      const result = await turn.result;
      assert.equal(result.error, undefined, result.error?.message);
      return { log, packets, result, followUp: followUpOf() };
    }

    it('answers its call without running it (not on repaired arguments either), in words the model reads', {
      timeout: 30_000,
    }, async () => {
      // The filter cut the call mid-argument: repaired, it would delete everything before "20".
      const { log, result, followUp, packets } = await run([
        { type: 'tool-call-start', index: 0, id: 'call_delete', name: 'delete_records' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{"before": "20' },
        { type: 'finish', reason: 'content-filter' },
      ]);
      assert.deepEqual(log, []);
      assert.equal(result.toolOutcomes[0]?.status, 'call-error');
      const toolResult = followUp?.messages.flatMap((message) => message.toolResults)[0];
      assert.match(
        toolResult?.content ?? '',
        /"delete_records" was not run: the provider's content filter stopped the step/,
      );
      const errors = packets.filter((packet) => packet.obj.type === 'error');
      assert.equal(errors.length, 1);
      assert.equal((errors[0]?.obj as { code?: string } | undefined)?.code, UNRUN_TOOL_CALL_CODE);
      assert.equal(result.answer, 'I will not do that.');
    });

    it('stops a call that started while the step was streaming', { timeout: 30_000 }, async () => {
      const { log, result, followUp } = await run([
        { type: 'tool-call', id: 'call_wait', name: 'wait_for_signal', arguments: {} },
        { type: 'delay', ms: 200 },
        { type: 'finish', reason: 'content-filter' },
      ]);
      assert.deepEqual(log, ['started', 'stopped']);
      assert.equal(result.toolOutcomes[0]?.status, 'call-error');
      const toolResult = followUp?.messages.flatMap((message) => message.toolResults)[0];
      assert.match(toolResult?.content ?? '', /"wait_for_signal" was not run: the provider's content filter/);
    });
  });
}
