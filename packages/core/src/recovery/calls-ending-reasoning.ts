import type { LocatedToolCall } from './extracted-tool-call.ts';

/**
 * The calls of `calls` (sorted by start, all inside `text[from, to)`) that end the reasoning there: each followed
 * by nothing but whitespace and later such calls up to `to`. A model acts in its reasoning by ending it with the
 * calls (Qwen3.5 writes them before `</think>`, llama.cpp #23678, vLLM #55759); a call that more thinking
 * follows ("The format is <seed:tool_call>…. Wait, but…") was quoted or rehearsed, and runs nothing.
 */
export function callsEndingReasoning<T extends LocatedToolCall>(
  text: string,
  calls: readonly T[],
  to: number,
): T[] {
  const acted: T[] = [];
  let until = to;
  for (let index = calls.length - 1; index >= 0; index--) {
    const call = calls[index]!;
    if (text.slice(Math.min(call.end, until), until).trim() !== '') break;
    acted.unshift(call);
    until = call.start;
  }
  return acted;
}
