import type { LocatedToolCall } from './extracted-tool-call.ts';
import { lowerBound, type TextScan } from './text-scan.ts';

/**
 * Where chat templates put a tool's result (Qwen/Hermes and GLM `<tool_response>`, Gemma 4 `<|tool_response>`,
 * DeepSeek `<｜tool▁output▁begin｜>`, Nemotron `<TOOL_RESPONSE>`, Mistral `[TOOL_RESULTS]`, Llama 3's `ipython`
 * turn, GLM's `<|observation|>`, Qwen-Agent's `✿RESULT✿`, Anthropic-style `<function_results>`): the caller
 * writes these, never the model.
 */
export const toolResultMarkers: readonly string[] = Object.freeze([
  '<tool_response>',
  '<|tool_response>',
  '<｜tool▁outputs▁begin｜>',
  '<｜tool▁output▁begin｜>',
  '<TOOL_RESPONSE>',
  '[TOOL_RESULTS]',
  '<|start_header_id|>ipython',
  '<|observation|>',
  '✿RESULT✿',
  '<function_results>',
]);

/**
 * Where text after the first call starts imitating a tool's result (a model writing the output of its own
 * call instead of waiting for it), or -1. From there on nothing is a call the model made, and nothing is an
 * answer: the result it wrote is invented. With the extractor's `scan` (whose needles hold
 * {@link toolResultMarkers}), the markers' positions come from its one pass over the text: ten searches of
 * their own, each to the end of the text, cost a third of the extraction of hostile text.
 */
export function imitatedResultStart(
  text: string,
  calls: readonly LocatedToolCall[],
  scan?: TextScan,
): number {
  if (calls.length === 0) return -1;
  const from = calls[0]!.end;
  let start = -1;
  for (const marker of toolResultMarkers) {
    let at: number;
    if (scan === undefined) at = text.indexOf(marker, from);
    else {
      // The scan's positions ignore ASCII case (a lower-case needle's too): the marker is matched exactly.
      const positions = scan.positions(marker);
      at = -1;
      for (let index = lowerBound(positions, from); index < positions.length; index++) {
        if (!text.startsWith(marker, positions[index]!)) continue;
        at = positions[index]!;
        break;
      }
    }
    if (at >= 0 && (start < 0 || at < start)) start = at;
  }
  return start;
}
