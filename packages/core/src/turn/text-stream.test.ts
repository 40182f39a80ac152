import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Packet } from '@toolbus/spec';
import * as z from 'zod';
import { resolveLanguageModel } from '../llm/resolve-language-model.ts';
import { chunkText, startScriptedModelServer } from '../testing/index.ts';
import { defineTool } from '../tool/define-tool.ts';
import { runChatTurn } from './run-chat-turn.ts';
import { textStream } from './text-stream.ts';

const search = defineTool({
  name: 'internal_search',
  description: 'Search the company documents',
  parameters: z.object({ queries: z.array(z.string()) }),
  run: () => 'Refunds take 14 days.',
});

async function answerOf(written: string): Promise<{ chunks: string[]; answer: string }> {
  const server = await startScriptedModelServer({
    turns: [
      chunkText(written, 5).map((text) => ({ type: 'text' as const, text })),
      chunkText('Refunds take 14 days.', 4).map((text) => ({ type: 'text' as const, text })),
    ],
  });
  try {
    const model = resolveLanguageModel(`openai-compatible:${server.url}/v1#qwen2.5:7b`, {
      env: { TOOLBUS_API_KEY: 'k' },
    });
    const turn = runChatTurn({ model, messages: [{ role: 'user', content: 'Refunds?' }], tools: [search] });
    const chunks: string[] = [];
    for await (const chunk of textStream(turn)) chunks.push(chunk);
    return { chunks, answer: (await turn.result).answer };
  } finally {
    await server.close();
  }
}

describe('textStream', () => {
  it('a call written as bare JSON after prose and retracted never reaches the text; the answer streams', async () => {
    const { chunks, answer } = await answerOf(
      'Let me look that up.\n{"name": "internal_search", "arguments": {"queries": ["refunds"]}}',
    );
    const text = chunks.join('');
    assert.doesNotMatch(text, /internal_search|\{/);
    assert.equal(text, 'Let me look that up.\nRefunds take 14 days.');
    assert.ok(chunks.length > 3, `streamed in pieces: ${JSON.stringify(chunks)}`);
    assert.equal(answer, 'Refunds take 14 days.');
  });

  it('an answer with a code block is given whole once its step ends', async () => {
    const written = 'Use this:\n```json\n{"a": 1}\n```\nDone.';
    const server = await startScriptedModelServer({
      turns: [chunkText(written, 3).map((text) => ({ type: 'text' as const, text }))],
    });
    try {
      const model = resolveLanguageModel(`openai-compatible:${server.url}/v1#m`, {
        env: { TOOLBUS_API_KEY: 'k' },
      });
      const chunks: string[] = [];
      for await (const chunk of textStream(
        runChatTurn({ model, messages: [{ role: 'user', content: 'x' }] }),
      ))
        chunks.push(chunk);
      assert.equal(chunks.join(''), written);
    } finally {
      await server.close();
    }
  });

  it("a message-replace that keeps the text given so far gives only what it adds; a sub-agent's text is left out", async () => {
    async function* packets(): AsyncGenerator<Packet> {
      const at = { turn: 0, tab: 0 };
      yield { placement: at, modelIndex: 0, obj: { type: 'message-start' } };
      yield { placement: at, modelIndex: 0, obj: { type: 'message-delta', content: 'Hello ' } };
      yield {
        placement: { ...at, path: [{ turn: 0, tab: 0 }] },
        modelIndex: 0,
        obj: { type: 'message-delta', content: 'inner' },
      };
      yield { placement: at, modelIndex: 0, obj: { type: 'message-delta', content: '[x(1)]' } };
      yield { placement: at, modelIndex: 0, obj: { type: 'message-replace', content: 'Hello world.' } };
      yield { placement: at, modelIndex: 0, obj: { type: 'stop', reason: 'finished' } };
    }
    const chunks: string[] = [];
    for await (const chunk of textStream(packets())) chunks.push(chunk);
    assert.deepEqual(chunks, ['Hello ', 'world.']);
  });
});
