import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatMessage, Tool } from '@toolbus/spec';
import * as z from 'zod';
import {
  scriptedModel,
  scriptedProviders,
  useQueuedModelServer,
} from '../llm/__fixtures__/scripted-providers.ts';
import type { ScriptedStep } from '../testing/index.ts';
import { collectTurn, packetsOfType, textSteps } from '../testing/index.ts';
import { defineTool } from '../tool/define-tool.ts';
import { CUT_OFF_TOOL_CALL_CODE, hasCompleteArguments } from './cut-off-tool-calls.ts';
import { runChatTurn } from './run-chat-turn.ts';

// Native tool calls (not text) that the output token limit cut off: the provider closes every open call when
// the stream ends, whatever its arguments hold, so a `length` finish with unterminated argument JSON must fail
// closed exactly like a cut-off text call.

const question: ChatMessage[] = [{ role: 'user', content: 'Write the report to disk.' }];

function writeTool(log: string[]): Tool {
  return defineTool({
    name: 'write_file',
    description: 'Write a file',
    parameters: z.object({ path: z.string(), content: z.string() }),
    run: ({ path, content }) => {
      log.push(`${path}:${content}`);
      return `wrote ${content.length} characters`;
    },
  });
}

describe('hasCompleteArguments', () => {
  it('is true only for one complete JSON value', () => {
    assert.equal(hasCompleteArguments('{"path": "a.txt", "content": "x"}'), true);
    assert.equal(hasCompleteArguments('  {}\n'), true);
    assert.equal(hasCompleteArguments('{"path": "a.txt", "content": "Quarterly revenue gr'), false);
    assert.equal(hasCompleteArguments('{"path": "a.txt", '), false);
    assert.equal(hasCompleteArguments('{"path": "a.txt"} trailing'), false);
    assert.equal(hasCompleteArguments(''), false);
  });
});

for (const provider of scriptedProviders) {
  describe(`native tool calls cut off by the token limit over ${provider}`, () => {
    const { server, queueWithFollowUp } = useQueuedModelServer();
    const model = () => scriptedModel({ provider, serverUrl: server().url });

    async function run(first: ScriptedStep[]) {
      const log: string[] = [];
      const followUpOf = queueWithFollowUp(first, textSteps(['Done.']));
      const { packets, result } = await collectTurn(
        runChatTurn({ model: model(), messages: question, tools: [writeTool(log)] }),
      );
      assert.equal(result.error, undefined, result.error?.message);
      return { log, packets, result, followUp: followUpOf() };
    }

    it('a call whose argument JSON was still open on finish reason length never runs', async () => {
      const { log, packets, result, followUp } = await run([
        { type: 'tool-call-start', index: 0, id: 'call_cut', name: 'write_file' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{"path": "report.md", ' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '"content": "Quarterly revenue gr' },
        { type: 'finish', reason: 'length' },
      ]);
      assert.deepEqual(log, [], "the tool's execute never ran");
      assert.equal(result.toolOutcomes.length, 1);
      assert.equal(result.toolOutcomes[0]?.status, 'call-error');
      const rich = result.toolOutcomes[0]?.response.rich;
      assert.equal(rich?.type === 'failure' ? rich.code : undefined, CUT_OFF_TOOL_CALL_CODE);
      // The model reads why, on the call it made.
      const assistant = followUp?.messages.find((message) => message.role === 'assistant');
      assert.equal(assistant?.toolCalls[0]?.name, 'write_file');
      const toolResult = followUp?.messages.flatMap((message) => message.toolResults)[0];
      assert.equal(toolResult?.toolCallId, assistant?.toolCalls[0]?.id);
      assert.match(toolResult?.content ?? '', /"write_file" was cut off by the output token limit/);
      assert.match(toolResult?.content ?? '', /Call it again with shorter arguments/);
      // The user sees a failed tool line.
      const started = packetsOfType(packets, 'tool-start');
      assert.equal(started.length, 1);
      assert.equal(started[0]?.obj.toolName, 'write_file');
      const errors = packetsOfType(packets, 'error');
      assert.equal(errors.length, 1);
      assert.equal(errors[0]?.obj.code, CUT_OFF_TOOL_CALL_CODE);
      assert.deepEqual(errors[0]?.placement, started[0]?.placement);
      const ends = packetsOfType(packets, 'tool-end');
      assert.equal(ends.length, 1);
      assert.equal(ends[0]?.obj.status, 'call-error');
      assert.equal(ends[0]?.obj.error?.code, CUT_OFF_TOOL_CALL_CODE);
      assert.equal(ends[0]?.obj.toolCallId, started[0]?.obj.toolCallId);
      assert.equal(result.answer, 'Done.');
    });

    it('of two calls, the complete one runs and the cut-off one does not', async () => {
      const { log, result } = await run([
        {
          type: 'tool-call',
          id: 'call_whole',
          name: 'write_file',
          arguments: { path: 'a.md', content: 'short' },
        },
        { type: 'tool-call-start', index: 1, id: 'call_cut', name: 'write_file' },
        { type: 'tool-call-delta', index: 1, argumentsDelta: '{"path": "b.md", "content": "long tex' },
        { type: 'finish', reason: 'length' },
      ]);
      assert.deepEqual(log, ['a.md:short']);
      assert.deepEqual(
        result.toolOutcomes.map((outcome) => outcome.status),
        ['success', 'call-error'],
      );
    });

    it('a call whose arguments are complete JSON still runs on finish reason length', async () => {
      const { log, packets, result } = await run([
        {
          type: 'tool-call',
          id: 'call_whole',
          name: 'write_file',
          arguments: { path: 'a.md', content: 'all of it' },
          chunkSize: 7,
        },
        { type: 'finish', reason: 'length' },
      ]);
      assert.deepEqual(log, ['a.md:all of it']);
      assert.equal(result.toolOutcomes[0]?.status, 'success');
      assert.equal(packetsOfType(packets, 'error').length, 0);
    });

    it('unterminated arguments on a normal finish are not treated as cut off', async () => {
      // Only the token limit proves a cut; otherwise the call runs on its repaired arguments as before.
      const { log, result } = await run([
        { type: 'tool-call-start', index: 0, id: 'call_open', name: 'write_file' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{"path": "c.md", "content": "fine"' },
        { type: 'finish', reason: 'tool-calls' },
      ]);
      assert.deepEqual(log, ['c.md:fine']);
      assert.equal(result.toolOutcomes[0]?.status, 'success');
    });
  });
}
