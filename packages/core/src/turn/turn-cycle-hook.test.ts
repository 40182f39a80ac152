import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Packet, Tool } from '@toolbus/spec';
import * as z from 'zod';
import { scriptedModel, useQueuedModelServer } from '../llm/__fixtures__/scripted-providers.ts';
import { defineTool } from '../tool/define-tool.ts';
import { runChatTurn } from './run-chat-turn.ts';

const think = defineTool({
  name: 'think_tool',
  description: 'Think',
  parameters: z.object({ reasoning: z.string() }),
  emitStart: () => undefined,
  run: () => 'Acknowledged, please continue.',
});
const done: Tool = defineTool({
  name: 'finish_up',
  description: 'Finish',
  parameters: z.object({}),
  stopsTurn: true,
  run: () => 'Finished.',
});

for (const provider of ['openai', 'anthropic'] as const) {
  describe(`runChatTurn cycle hook and reasoning tool over ${provider}`, () => {
    const { turns, server } = useQueuedModelServer();

    it('beforeCycle sets each cycle tools and tool choice, and stops the loop; think arguments stream as reasoning', async () => {
      turns.push(
        [
          {
            type: 'tool-call',
            id: 'call_t1',
            name: 'think_tool',
            arguments: { reasoning: 'Line one\n"quoted" \\ end' },
            chunkSize: 4,
          },
        ],
        [{ type: 'tool-call', id: 'call_f1', name: 'finish_up', arguments: {} }],
      );
      const seen: number[] = [];
      const before = server().requests.length;
      const turn = runChatTurn({
        model: scriptedModel({ provider, serverUrl: server().url }),
        messages: [{ role: 'user', content: 'Go' }],
        tools: [think, done],
        reasoningTool: 'think_tool',
        beforeCycle: ({ cycle, previousToolCalls }) => {
          seen.push(previousToolCalls.length);
          if (cycle === 3) return { stop: true };
          return cycle === 0 ? { toolChoice: 'required' } : { tools: [done], toolChoice: 'required' };
        },
      });
      const packets: Packet[] = [];
      for await (const packet of turn) packets.push(packet);
      const result = await turn.result;
      assert.equal(result.error, undefined, result.error?.message);
      assert.equal(result.stopReason, 'stopping-tool');
      assert.deepEqual(seen, [0, 1]);
      const requests = server().requests.slice(before);
      assert.deepEqual(
        requests.map((request) => request.toolNames),
        [['think_tool', 'finish_up'], ['finish_up']],
      );
      const choices = requests.map((request) => (request.body as { tool_choice?: unknown }).tool_choice);
      assert.deepEqual(
        choices,
        provider === 'openai' ? ['required', 'required'] : [{ type: 'any' }, { type: 'any' }],
      );
      const reasoning = packets
        .map((packet) => (packet.obj.type === 'reasoning-delta' ? packet.obj.reasoning : ''))
        .join('');
      assert.equal(reasoning, 'Line one\n"quoted" \\ end');
      const types = packets.map((packet) => packet.obj.type);
      assert.deepEqual(types.slice(0, 2), ['reasoning-start', 'reasoning-delta']);
      assert.ok(types.indexOf('reasoning-end') < types.indexOf('section-end'));
      assert.equal(types.includes('tool-start'), true, 'finish_up opens its section; think_tool does not');
    });

    it('a sub-agent configures the loop: per-cycle prompt, per-tool cap, awaited checkpoint, stop condition, placement', async () => {
      const agent = defineTool({
        name: 'agent',
        description: 'Dispatch',
        parameters: z.object({ task: z.string() }),
        maxCallsPerCycle: 2,
        run: ({ task }) => `report on ${task}`,
      });
      turns.push(
        [0, 1, 2].map((index) => ({
          type: 'tool-call' as const,
          index,
          id: `call_a${index}`,
          name: 'agent',
          arguments: { task: `t${index}` },
        })),
        [{ type: 'tool-call', id: 'call_t2', name: 'think_tool', arguments: { reasoning: 'More?' } }],
        [{ type: 'text', text: 'never asked' }],
      );
      const before = server().requests.length;
      const checkpoints: { cycle: number; messages: number; nextTurn: number }[] = [];
      const sink: Packet[] = [];
      const turn = runChatTurn({
        model: scriptedModel({ provider, serverUrl: server().url }),
        messages: [{ role: 'user', content: 'Go' }],
        tools: [think, agent],
        parent: {
          sink: { emitAt: (placement, obj) => sink.push({ placement, obj, modelIndex: 0 }) },
          firstTurn: 5,
        },
        beforeCycle: ({ cycle, messages }) => ({
          toolChoice: 'required',
          messages: [{ role: 'system', content: `Cycle ${cycle + 1}` }, ...messages],
        }),
        afterCycle: async ({ cycle, toolCalls, messages, nextTurn }) => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          checkpoints.push({ cycle, messages: messages.length, nextTurn });
          return { stop: toolCalls.every((call) => call.name === 'think_tool') };
        },
      });
      const result = await turn.result;
      assert.equal(result.error, undefined, result.error?.message);
      assert.equal(result.stopReason, 'finished', 'the stop condition ended the loop');
      const requests = server().requests.slice(before);
      assert.equal(requests.length, 2);
      assert.deepEqual(
        requests.map((request) => request.messages.find((message) => message.role === 'system')?.text),
        ['Cycle 1', 'Cycle 2'],
      );
      // The history has no system prompt: the per-cycle messages are what the step read, not what it keeps.
      assert.ok(result.messages.every((message) => message.role !== 'system'));
      const statuses = result.toolOutcomes.map((outcome) => outcome.status);
      assert.deepEqual(statuses, ['success', 'success', 'over-cap', 'success']);
      assert.match(result.toolOutcomes[2]?.response.llmFacing ?? '', /at most 2 tool call\(s\) of "agent"/);
      assert.deepEqual(
        checkpoints.map((checkpoint) => [checkpoint.cycle, checkpoint.messages]),
        [
          [0, 4],
          [1, 6],
        ],
      );
      assert.ok(sink.every((packet) => packet.placement.turn >= 5 && !packet.placement.path));
      assert.equal(sink.at(-1)?.obj.type, 'stop');
      assert.equal(sink.at(-1)?.placement.turn, checkpoints.at(-1)?.nextTurn);
      turns.length = 0;
    });

    it('a stop before the first cycle ends the turn without a model call', async () => {
      const before = server().requests.length;
      const turn = runChatTurn({
        model: scriptedModel({ provider, serverUrl: server().url }),
        messages: [{ role: 'user', content: 'Go' }],
        beforeCycle: () => ({ stop: true }),
      });
      for await (const _packet of turn) {
        // drained
      }
      const result = await turn.result;
      assert.equal(result.stopReason, 'cycle-limit');
      assert.equal(result.cycles, 0);
      assert.equal(server().requests.length, before);
    });
  });
}
