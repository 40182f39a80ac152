// A model stream that breaks in the middle of an answer (the server drops the connection) over real HTTP, with
// each provider package: the turn keeps what the user saw, as a stop does, and says why in an error packet.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChatMessage, Packet } from '@toolbus/spec';
import * as z from 'zod';
import { scriptedModel, scriptedProviders } from '../llm/__fixtures__/scripted-providers.ts';
import type { ScriptedModelServer, ScriptedStep } from '../testing/index.ts';
import { startScriptedModelServer } from '../testing/index.ts';
import { defineTool } from '../tool/define-tool.ts';
import { runChatTurn } from './run-chat-turn.ts';

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a word up',
  parameters: z.object({ word: z.string() }),
  run: ({ word }) => `${word}: found`,
});

describe('a model stream dropped mid-answer', () => {
  let server: ScriptedModelServer;
  let steps: ScriptedStep[] = [];
  before(async () => {
    server = await startScriptedModelServer({ handler: () => steps });
  });
  after(() => server.close());

  for (const provider of scriptedProviders) {
    it(`keeps the partial answer and the finished calls with results, and emits the error (${provider})`, async () => {
      steps = [
        { type: 'text', text: '  Refunds take ' },
        { type: 'text', text: 'fourteen ' },
        { type: 'tool-call', id: 'call_1', name: 'lookup', arguments: { word: 'refund' } },
        { type: 'delay', ms: 50 },
        { type: 'drop' },
      ];
      const messages: ChatMessage[] = [{ role: 'user', content: 'How long do refunds take?' }];
      const turn = runChatTurn({
        model: scriptedModel({ provider, serverUrl: server.url }),
        messages,
        tools: [lookup],
      });
      const packets: Packet[] = [];
      for await (const packet of turn) packets.push(packet);
      const result = await turn.result;

      assert.equal(result.stopReason, 'error');
      const error = packets.find(
        (packet) => packet.obj.type === 'error' && !packet.placement.path?.length,
      )?.obj;
      assert.ok(error?.type === 'error', JSON.stringify(packets.map((packet) => packet.obj)));
      assert.equal(error.code, result.error?.code);
      assert.match(
        error.message,
        /^the model stream broke: the connection closed before the answer ended \(terminated/,
      );
      assert.deepEqual(packets.at(-1)?.obj, { type: 'stop', reason: 'error' });
      // The answer so far (trimmed), the call the model had finished writing, and its result.
      assert.deepEqual(
        result.messages.map((message) => message.role),
        ['assistant', 'tool'],
      );
      const [answer, toolResult] = result.messages;
      assert.equal(answer?.role === 'assistant' && answer.content, 'Refunds take fourteen');
      assert.deepEqual(answer?.role === 'assistant' && answer.toolCalls?.map((call) => call.name), [
        'lookup',
      ]);
      assert.equal(toolResult?.role === 'tool' && toolResult.content, 'refund: found');
    });
  }

  it('keeps a partial answer without calls as the turn answer', async () => {
    steps = [{ type: 'text', text: 'The first half. ' }, { type: 'delay', ms: 50 }, { type: 'drop' }];
    const turn = runChatTurn({
      model: scriptedModel({ provider: 'openai-compatible', serverUrl: server.url }),
      messages: [{ role: 'user', content: 'Say it' }],
    });
    for await (const _packet of turn) {
      // drained
    }
    const result = await turn.result;
    assert.equal(result.stopReason, 'error');
    assert.deepEqual(result.messages, [{ role: 'assistant', content: 'The first half.' }]);
    assert.equal(result.answer, 'The first half.');
  });
});
