import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { plainContentOf } from './plain-content-chunk.ts';

const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices,
    ...extra,
  });

// Chunks as servers write them whose text the repair may read without parsing.
const plain: Record<string, string> = {
  vllm: chunk([{ index: 0, delta: { content: ' the' }, logprobs: null, finish_reason: null }]),
  'ollama, with the role': chunk(
    [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }],
    { system_fingerprint: 'fp_ollama' },
  ),
  'llama.cpp, keys in another order': JSON.stringify({
    choices: [{ finish_reason: null, index: 0, delta: { content: 'x' } }],
    created: 1,
    id: 'c',
    model: 'm',
    object: 'chat.completion.chunk',
    timings: { predicted_n: 3 },
  }),
  'no index, no finish': chunk([{ delta: { content: 'a' } }]),
  'escapes, quotes and markup in the text': chunk([
    {
      index: 0,
      delta: { content: 'say "hi"\\n\n<tool_call>{"name": "f"}</tool_call> \u00e9 \ud83d\ude00' },
      finish_reason: null,
    },
  ]),
  'text that looks like the keys': chunk([
    {
      index: 0,
      delta: { content: '"delta":{"content":"x"},"finish_reason":"stop","index":1' },
      finish_reason: null,
    },
  ]),
  'text ending in a backslash': chunk([{ index: 0, delta: { content: 'C:\\' }, finish_reason: null }]),
  'empty text': chunk([{ index: 0, delta: { content: '' }, finish_reason: null }]),
};

// Chunks the repair must parse: anything but one piece of text.
const notPlain: Record<string, string> = {
  'a finish': chunk([{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }]),
  'native tool calls': chunk([
    {
      index: 0,
      delta: { content: 'x', tool_calls: [{ index: 0, function: { arguments: '{}' } }] },
      finish_reason: null,
    },
  ]),
  'tool calls first': chunk([
    { index: 0, delta: { tool_calls: [{ index: 0 }], content: 'x' }, finish_reason: null },
  ]),
  'reasoning after the text': chunk([
    { index: 0, delta: { content: 'x', reasoning_content: 'r' }, finish_reason: null },
  ]),
  'reasoning only': chunk([{ index: 0, delta: { reasoning_content: 'r' }, finish_reason: null }]),
  'two choices': chunk([
    { index: 0, delta: { content: 'a' }, finish_reason: null },
    { index: 1, delta: { content: 'b' }, finish_reason: null },
  ]),
  'a second choice without a delta': chunk([
    { index: 0, delta: { content: 'a' }, finish_reason: null },
    { index: 1, finish_reason: 'stop' },
  ]),
  'choice index 1': chunk([{ index: 1, delta: { content: 'b' }, finish_reason: null }]),
  'another role': chunk([{ index: 0, delta: { role: 'tool', content: 'b' }, finish_reason: null }]),
  'content that is not a string': chunk([{ index: 0, delta: { content: null }, finish_reason: null }]),
  'no delta': chunk([{ index: 0, message: { content: 'x' }, finish_reason: null }]),
  'spaces after colons (json.dumps)':
    '{"choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": null}]}',
};

describe('plainContentOf', () => {
  for (const [name, data] of Object.entries(plain)) {
    test(`reads the text of a plain chunk: ${name}`, () => {
      const parsed = JSON.parse(data) as { choices: { delta: { content: string } }[] };
      assert.equal(plainContentOf(data), parsed.choices[0]?.delta.content);
    });
  }
  for (const [name, data] of Object.entries(notPlain)) {
    test(`leaves the rest to the parser: ${name}`, () => {
      assert.equal(plainContentOf(data), undefined);
    });
  }
});
