import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatMessage, Packet, SearchDocument, Tool } from '@toolbus/spec';
import * as z from 'zod';
import {
  scriptedModel,
  scriptedProviders,
  useQueuedModelServer,
} from '../llm/__fixtures__/scripted-providers.ts';
import { chunkText, collectTurn, packetsOfType, textSteps } from '../testing/index.ts';
import { defineTool } from '../tool/define-tool.ts';
import { type RunChatTurnOptions, runChatTurn } from './run-chat-turn.ts';

const question: ChatMessage[] = [{ role: 'user', content: 'What do our docs say about refunds?' }];

function searchTool(log: string[]): Tool {
  return defineTool({
    name: 'internal_search',
    description: 'Search the company documents',
    mergeableField: 'queries',
    parameters: z.object({ queries: z.array(z.string()) }),
    async run({ queries }, context) {
      log.push(`search:${queries.join('|')}`);
      const documents: SearchDocument[] = queries.map((query, index) => ({
        id: `doc-${query}`,
        title: `Doc about ${query}`,
        blurb: query,
        content: `Refunds take ${index + 14} days (${query}).`,
        sourceType: 'file',
      }));
      const cited = context.citations.assign(documents);
      return {
        llmFacing: cited.map((document) => `[${document.citationNumber}] ${document.content}`).join('\n'),
        rich: { type: 'documents', documents: cited },
      };
    },
  });
}

function codeTool(log: string[]): Tool {
  return defineTool({
    name: 'python',
    displayName: 'Code Interpreter',
    description: 'Run Python',
    parameters: z.object({ code: z.string() }),
    streamsArgumentDeltas: true,
    run: ({ code }, context) => {
      log.push(`python:${code}`);
      context.emitter.emit({ type: 'tool-progress', toolCallId: context.call.id, message: 'ran' });
      return 'printed 42';
    },
  });
}

const runTurn = (options: RunChatTurnOptions) => collectTurn(runChatTurn(options));

const types = (packets: readonly Packet[]) => packets.map((packet) => packet.obj.type);
const visibleText = (packets: readonly Packet[]) =>
  packets.map((packet) => (packet.obj.type === 'message-delta' ? packet.obj.content : '')).join('');

for (const provider of scriptedProviders) {
  describe(`runChatTurn over ${provider}`, () => {
    const { turns, server } = useQueuedModelServer();
    const model = () => scriptedModel({ provider, serverUrl: server().url });

    it('runs parallel native calls (merged searches, a code call), feeds results back, answers with citations', async () => {
      const log: string[] = [];
      turns.push([
        { type: 'reasoning', text: 'I should search twice and compute.' },
        {
          type: 'tool-call',
          id: 'call_s1',
          name: 'internal_search',
          arguments: { queries: ['refund policy'] },
          chunkSize: 3,
        },
        {
          type: 'tool-call',
          id: 'call_py',
          name: 'python',
          arguments: { code: 'print(6 * 7)' },
          chunkSize: 2,
        },
        {
          type: 'tool-call',
          id: 'call_s2',
          name: 'internal_search',
          arguments: { queries: ['refund time'] },
          chunkSize: 5,
        },
      ]);
      turns.push({
        assert: (request) => {
          const results = request.messages.flatMap((message) => message.toolResults);
          assert.deepEqual(results.map((result) => result.toolCallId).sort(), [
            'call_py',
            'call_s1',
            'call_s2',
          ]);
        },
        steps: textSteps(chunkText('Refunds take 14 days [1], sometimes 15 [2].', 4)),
      });
      const { packets, result } = await runTurn({
        model: model(),
        messages: question,
        tools: [searchTool(log), codeTool(log)],
      });
      assert.equal(result.error, undefined, result.error?.message);
      assert.equal(result.stopReason, 'finished');
      assert.equal(result.answer, 'Refunds take 14 days [1], sometimes 15 [2].');
      assert.deepEqual(log.sort(), ['python:print(6 * 7)', 'search:refund policy|refund time']);
      // History: one assistant message with all three calls, one result per call id, then the answer.
      assert.deepEqual(
        result.messages.map((message) => message.role),
        ['assistant', 'tool', 'tool', 'tool', 'assistant'],
      );
      const first = result.messages[0];
      assert.equal(first?.role === 'assistant' && first.toolCalls?.length, 3);
      // The official OpenAI package has no reasoning channel in Chat Completions; the others carry it.
      const reasons = provider !== 'openai';
      if (reasons) {
        assert.equal(first?.role === 'assistant' && first.reasoning, 'I should search twice and compute.');
        assert.equal(packetsOfType(packets, 'reasoning-delta')[0]?.placement.turn, 0);
      }
      // Reasoning sits on its own turn; the tool calls on the next; the answer on the one after.
      const toolTurn = reasons ? 1 : 0;
      assert.ok(packetsOfType(packets, 'tool-start').every((packet) => packet.placement.turn === toolTurn));
      assert.equal(packetsOfType(packets, 'message-start')[0]?.placement.turn, toolTurn + 1);
      // Code arguments streamed as they were written; search arguments were not.
      const code = packetsOfType(packets, 'tool-argument-delta')
        .map((packet) => packet.obj.argumentDeltas.code ?? '')
        .join('');
      assert.equal(code, 'print(6 * 7)');
      assert.ok(
        packetsOfType(packets, 'tool-argument-delta').every((packet) => packet.obj.toolName === 'python'),
      );
      // Each delta names the tool as a person reads it, so a viewer labels the call from its first packet.
      assert.ok(
        packetsOfType(packets, 'tool-argument-delta').every(
          (packet) => packet.obj.displayName === 'Code Interpreter',
        ),
      );
      // Citation packets for the documents cited, before the text that cites them.
      assert.deepEqual(
        packetsOfType(packets, 'citation-info').map((packet) => [
          packet.obj.citationNumber,
          packet.obj.documentId,
        ]),
        [
          [1, 'doc-refund policy'],
          [2, 'doc-refund time'],
        ],
      );
      assert.deepEqual(
        result.citedDocuments.map((document) => document.id),
        ['doc-refund policy', 'doc-refund time'],
      );
      assert.equal(types(packets).at(-1), 'stop');
    });

    it('starts a complete call while the model is still streaming the next one', async () => {
      const log: string[] = [];
      turns.push([
        { type: 'tool-call', id: 'call_a', name: 'python', arguments: { code: 'a = 1' } },
        { type: 'delay', ms: 150 },
        { type: 'tool-call-start', index: 1, id: 'call_b', name: 'python' },
        { type: 'tool-call-delta', index: 1, argumentsDelta: '{"code": "b = 2"}' },
      ]);
      turns.push(textSteps(['done']));
      const { packets } = await runTurn({ model: model(), messages: question, tools: [codeTool(log)] });
      const order = packets.map((packet) =>
        packet.obj.type === 'tool-start' || packet.obj.type === 'tool-argument-delta'
          ? `${packet.obj.type}:${packet.obj.toolCallId}`
          : '',
      );
      const startA = order.indexOf('tool-start:call_a');
      const deltaB = order.indexOf('tool-argument-delta:call_b');
      assert.ok(startA >= 0 && deltaB >= 0);
      assert.ok(startA < deltaB, 'call_a started before call_b was even written');
    });

    it('recovers a tool call written as text, hides the markup, and runs it', async () => {
      const log: string[] = [];
      const written =
        'Let me look.<function_calls><invoke name="internal_search"><parameter name="queries">["refunds"]</parameter></invoke></function_calls>';
      turns.push(textSteps(chunkText(written, 7)));
      turns.push({
        assert: (request) => {
          const results = request.messages.flatMap((message) => message.toolResults);
          assert.equal(results.length, 1);
          assert.match(results[0]?.content ?? '', /Refunds take 14 days/);
        },
        steps: textSteps(['Refunds take 14 days [1].']),
      });
      const { packets, result } = await runTurn({
        model: model(),
        messages: question,
        tools: [searchTool(log)],
      });
      assert.equal(result.error, undefined, result.error?.message);
      assert.deepEqual(log, ['search:refunds']);
      assert.equal(result.recoveredToolCalls, 1);
      assert.doesNotMatch(visibleText(packets), /function_calls|invoke/);
      assert.match(visibleText(packets), /^Let me look\.Refunds take 14 days \[1\]\.$/);
    });

    it('bounds recovery and sends a corrective message when the call cannot be read', async () => {
      const broken = '<function_calls><invoke name="no_such_tool"></invoke></function_calls>';
      turns.push(textSteps([broken]));
      turns.push({
        assert: (request) => assert.match(request.lastMessage?.text ?? '', /could not be read/),
        steps: textSteps([broken]),
      });
      const { result } = await runTurn({
        model: model(),
        messages: question,
        tools: [searchTool([])],
        recovery: { maxAttempts: 2, correctiveMessage: true },
      });
      assert.equal(result.cycles, 2, 'one retry after the corrective message, then no more recovery');
      assert.equal(result.recoveredToolCalls, 0);
      assert.equal(result.stopReason, 'finished');
      assert.equal(result.answer, '', 'markup never becomes the answer');
    });

    it('forces an answer without tools at the cycle limit', async () => {
      const log: string[] = [];
      for (let index = 0; index < 2; index += 1) {
        turns.push([
          { type: 'tool-call', id: `call_${index}`, name: 'python', arguments: { code: `x = ${index}` } },
        ]);
      }
      turns.push({
        assert: (request) => assert.deepEqual(request.toolNames, []),
        steps: textSteps(['Final answer.']),
      });
      const { result } = await runTurn({
        model: model(),
        messages: question,
        tools: [codeTool(log)],
        maxCycles: 3,
      });
      assert.equal(result.stopReason, 'cycle-limit');
      assert.equal(result.answer, 'Final answer.');
      assert.equal(log.length, 2);
    });

    it('ends the loop after a stopping tool', async () => {
      const image = defineTool({
        name: 'generate_image',
        description: 'Make an image',
        stopsTurn: true,
        parameters: z.object({ prompt: z.string() }),
        run: () => 'image saved',
      });
      turns.push([
        { type: 'tool-call', id: 'call_img', name: 'generate_image', arguments: { prompt: 'a cat' } },
      ]);
      const before = server().requests.length;
      const { result } = await runTurn({ model: model(), messages: question, tools: [image] });
      assert.equal(result.stopReason, 'stopping-tool');
      assert.equal(server().requests.length - before, 1);
    });

    it('shows prose inside markup exactly as written when it holds no tool call', async () => {
      turns.push(textSteps(['<function_calls>', 'I cannot use tools for this, sorry.', '</function_calls>']));
      const { packets, result } = await runTurn({
        model: model(),
        messages: question,
        tools: [searchTool([])],
      });
      assert.equal(result.answer, '<function_calls>I cannot use tools for this, sorry.</function_calls>');
      assert.equal(visibleText(packets), result.answer);
      assert.equal(result.stopReason, 'finished');
    });

    it('stops the model stream and running tools promptly when the caller aborts', async () => {
      const controller = new AbortController();
      let toolSawAbort = false;
      const slow = defineTool({
        name: 'slow',
        description: 'waits',
        parameters: z.object({}),
        run: (_args, context) =>
          new Promise((resolve) => {
            context.signal.addEventListener('abort', () => {
              toolSawAbort = true;
              resolve('stopped');
            });
            setTimeout(() => controller.abort(), 10);
          }),
      });
      turns.push([
        { type: 'tool-call', id: 'call_slow', name: 'slow', arguments: {} },
        { type: 'delay', ms: 30_000 },
        { type: 'text', text: 'never' },
      ]);
      const { packets, result } = await runTurn({
        model: model(),
        messages: question,
        tools: [slow],
        signal: controller.signal,
      });
      assert.equal(toolSawAbort, true);
      assert.equal(result.stopReason, 'user-cancelled');
      const stop = packetsOfType(packets, 'stop')[0];
      assert.equal(stop?.obj.reason, 'user-cancelled');
      assert.doesNotMatch(visibleText(packets), /never/);
      // The finished call stays in the history with a result saying it was stopped.
      assert.deepEqual(
        result.messages.map((message) => message.role),
        ['assistant', 'tool'],
      );
      const [call, answer] = result.messages;
      assert.equal(call?.role === 'assistant' && call.toolCalls?.[0]?.id, 'call_slow');
      assert.ok(answer?.role === 'tool' && answer.toolCallId === 'call_slow');
      assert.match(answer.content, /cancel|stop/i);
    });

    it('keeps the answer streamed so far in the history when the caller aborts mid-answer', async () => {
      const controller = new AbortController();
      turns.push([
        { type: 'text', text: 'Refunds take ' },
        { type: 'delay', ms: 30_000 },
        { type: 'text', text: 'never' },
      ]);
      const turn = runChatTurn({ model: model(), messages: question, signal: controller.signal });
      const packets: Packet[] = [];
      for await (const packet of turn) {
        packets.push(packet);
        if (packet.obj.type === 'message-delta') controller.abort();
      }
      const result = await turn.result;
      assert.equal(result.stopReason, 'user-cancelled');
      assert.deepEqual(result.messages, [{ role: 'assistant', content: 'Refunds take' }]);
      assert.equal(result.answer, 'Refunds take');
      assert.equal(visibleText(packets), 'Refunds take ');
    });
  });
}
