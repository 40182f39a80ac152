// The hand check of the common OpenAI-compatible chunk answers exactly what the provider's own zod chunk schema
// answers (same value, same keys in the same order, undefined-valued keys included) for every chunk it answers,
// and leaves every other chunk to the schema: recorded shapes from several servers, then thousands of mutations.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { openAICompatibleChunkCheck, unchecked } from './openai-compatible-chunk-check.ts';

interface ZodLike {
  safeParse(value: unknown): { success: boolean; data?: unknown };
}
const schema = (
  createOpenAICompatible({ name: 'local', baseURL: 'http://127.0.0.1:9/v1' }).chatModel('m') as unknown as {
    chunkSchema: ZodLike;
  }
).chunkSchema;

/** A value with its keys' order made visible (deepStrictEqual ignores order): [key, value] lists, recursively. */
function ordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ordered);
  if (typeof value !== 'object' || value === null) return value;
  return Object.entries(value).map(([key, entry]) => [key, ordered(entry)]);
}

const common = [
  {
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    system_fingerprint: 'fp',
    choices: [{ index: 0, delta: { content: 'Hi' }, logprobs: null, finish_reason: null }],
  },
  { id: 'c1', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
  { choices: [{ index: 0, delta: { reasoning_content: 'think' } }], usage: null },
  { choices: [{ index: 0, delta: { reasoning: 'think', content: null } }], model: null, id: null },
  { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
  { choices: [{ index: 0, delta: { refusal: 'no' } }] },
  { choices: [{ index: 0, delta: { refusal: null, extra: 1 } }], created: null },
  { choices: [{ index: 0, delta: null }] },
  { choices: [{ index: 0 }] },
  { choices: [] },
  { choices: [{ delta: { role: '', content: 'a' } }, { delta: { content: 'b' }, index: 1 }] },
  { choices: [{ delta: { content: 'x', tool_calls: null } }], nested: { a: [1, 2] } },
];
const leftToSchema = [
  { choices: [{ delta: { tool_calls: [{ index: 0, id: 't', function: { name: 'f', arguments: '{}' } }] } }] },
  { choices: [{ delta: { content: [{ type: 'text', text: 'hi' }] } }] },
  { choices: [{ delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 2 } },
  { error: { message: 'overloaded', type: 'server_error' } },
  { choices: 'not a list' },
  { choices: [{ delta: { role: 'user', content: 'x' } }] },
  { choices: [{ delta: { content: 5 } }] },
  { choices: [{ delta: 'text' }] },
  { choices: [{ finish_reason: 3 }] },
  { choices: [null] },
  { id: 5, choices: [] },
  { created: '1', choices: [] },
  [],
  null,
  'text',
  7,
];

/** Values a mutation puts in place of a field: every JSON type, and strings the enum takes or refuses. */
const replacements: unknown[] = [
  null,
  0,
  1.5,
  '',
  'assistant',
  'user',
  'x',
  true,
  [],
  [1],
  {},
  { type: 'text' },
];

/** A deterministic generator (mulberry32), so a failure names a mutation that can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `value` with one field somewhere replaced, removed or added. */
function mutate(value: unknown, next: () => number): unknown {
  const copy = structuredClone(value) as unknown;
  const containers: (Record<string, unknown> | unknown[])[] = [];
  const walk = (node: unknown) => {
    if (typeof node !== 'object' || node === null) return;
    containers.push(node as Record<string, unknown>);
    for (const child of Object.values(node)) walk(child);
  };
  walk(copy);
  const container = containers[Math.floor(next() * containers.length)];
  if (container === undefined) return copy;
  const keys = Array.isArray(container)
    ? container.map((_entry, index) => String(index))
    : Object.keys(container);
  const names = [
    ...keys,
    'role',
    'content',
    'refusal',
    'reasoning',
    'delta',
    'finish_reason',
    'usage',
    'id',
    'x',
  ];
  const key = names[Math.floor(next() * names.length)] as string;
  const record = container as Record<string, unknown>;
  if (next() < 0.2 && !Array.isArray(container)) delete record[key];
  else record[key] = replacements[Math.floor(next() * replacements.length)];
  return copy;
}

describe('openAICompatibleChunkCheck', () => {
  const check = openAICompatibleChunkCheck(schema);

  it("recognises the provider's chunk schema (a provider upgrade that changes its layout fails here)", () => {
    assert.ok(check, 'the pinned provider chunk schema has the layout the check mirrors');
    assert.equal(openAICompatibleChunkCheck({}), undefined);
    assert.equal(openAICompatibleChunkCheck(undefined), undefined);
  });

  it("answers the common chunks with the schema's own value, key order included", () => {
    for (const value of common) {
      const parsed = schema.safeParse(value);
      assert.ok(parsed.success, JSON.stringify(value));
      const answer = check?.(value);
      assert.notEqual(answer, unchecked, `answered by hand: ${JSON.stringify(value)}`);
      assert.deepStrictEqual(ordered(answer), ordered(parsed.data), JSON.stringify(value));
      assert.deepStrictEqual(answer, parsed.data);
    }
  });

  it('leaves tool calls, content parts, usage, errors and every invalid chunk to the schema', () => {
    for (const value of leftToSchema) assert.equal(check?.(value), unchecked, JSON.stringify(value));
  });

  it('never answers differently from the schema, over 20,000 mutated chunks', () => {
    const next = random(32);
    let answered = 0;
    let refused = 0;
    for (let round = 0; round < 20_000; round += 1) {
      const base = [...common, ...leftToSchema][Math.floor(next() * (common.length + leftToSchema.length))];
      const value = mutate(mutate(base, next), next);
      const answer = check?.(value);
      const parsed = schema.safeParse(value);
      if (!parsed.success) refused += 1;
      if (answer === unchecked) continue;
      answered += 1;
      assert.ok(parsed.success, `answered a chunk the schema refuses: ${JSON.stringify(value)}`);
      assert.deepStrictEqual(ordered(answer), ordered(parsed.data), JSON.stringify(value));
    }
    // The mutations reach both sides: many answered by hand, many the schema refuses.
    assert.ok(answered > 2_000, `answered ${answered}`);
    assert.ok(refused > 2_000, `refused ${refused}`);
  });
});
