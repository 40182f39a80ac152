import { parseToolArguments } from '@toolbus/core';

/** What to do with a new memory: add it, or replace the existing memory at `index` (0-based). */
export type MemoryDecision =
  | { readonly operation: 'add'; readonly text: string }
  | { readonly operation: 'update'; readonly index: number; readonly text: string };

/** The model's decision, or why its answer cannot be used. */
export type ParsedMemoryDecision =
  | { readonly ok: true; readonly decision: MemoryDecision }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads the decision model's answer tolerantly: thinking blocks and code fences are dropped, the outermost
 * `{…}` is parsed with the tolerant argument parser (never `JSON.parse` of model output), `memory_id` may be a
 * number or a numeric string and is 1-based. A missing or too long `memory_text` falls back to the original
 * memory. An unknown operation or an update of a memory that does not exist makes the answer unusable.
 */
export function parseMemoryDecision(options: {
  readonly answer: string;
  readonly memoryCount: number;
  readonly originalMemory: string;
  readonly maxMemoryChars: number;
}): ParsedMemoryDecision {
  const withoutThinking = options.answer.replace(/<think(?:ing)?>[\s\S]*?<\/think(?:ing)?>/gi, '');
  const first = withoutThinking.indexOf('{');
  const last = withoutThinking.lastIndexOf('}');
  if (first === -1 || last < first) return { ok: false, reason: 'the answer holds no JSON object' };
  const fields = parseToolArguments(withoutThinking.slice(first, last + 1));
  const operation = typeof fields.operation === 'string' ? fields.operation.trim().toLowerCase() : undefined;
  const rawText = typeof fields.memory_text === 'string' ? fields.memory_text.trim() : '';
  const text = rawText !== '' && rawText.length <= options.maxMemoryChars ? rawText : options.originalMemory;
  if (operation === 'add') return { ok: true, decision: { operation: 'add', text } };
  if (operation !== 'update') {
    return {
      ok: false,
      reason: operation ? `unknown operation "${operation.slice(0, 40)}"` : 'no operation',
    };
  }
  const memoryId = toInteger(fields.memory_id);
  if (memoryId === undefined || memoryId < 1 || memoryId > options.memoryCount) {
    return { ok: false, reason: 'it updates a memory that does not exist' };
  }
  return { ok: true, decision: { operation: 'update', index: memoryId - 1, text } };
}

function toInteger(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) ? number : undefined;
}
