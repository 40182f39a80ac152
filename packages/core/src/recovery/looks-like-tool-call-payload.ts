import type { ToolDefinition } from '@toolbus/spec';
import { extractToolCallsFromText } from './extract-tool-calls-from-text.ts';
import { lowerCaseAscii } from './text-search.ts';

// Markers that only appear when a model writes a tool call as text (peers.md §5). Lower-case, matched on
// ASCII-lower-cased text.
const callMarkers = [
  '<tool_call>',
  '[tool_calls]',
  '<|python_tag|>',
  '<function=',
  '<｜tool▁calls▁begin｜>',
  '<｜tool▁call▁begin｜>',
  '<|tool_calls_section_begin|>',
  '<|tool_call_begin|>',
  '<|tool_call|>',
  '<toolcall>',
  '<tool_calls>',
  '<|python_start|>',
  '<|tool_call_start|>',
  '<|start_action|>',
  '<|action_start|>',
  '<|tools_prefix|>',
  '<start_function_call>',
  '<|tool_call>',
  '<seed:tool_call>',
  '<minimax:tool_call>',
  '<function_call>',
];
const invokePattern = /<[^<>\s]{0,16}invoke\s+name\s*=/i;
const functionCallsPattern = /<function_calls[\s>]/i;

/**
 * The gate of seed §5.3, generalised to every dialect: true when the text carries tool-call markup — an
 * `<invoke name=…>` element (zero-parameter invokes included, no `<parameter>` needed), a `<function_calls>`
 * block, or any dialect's call marker (`<tool_call>`, `[TOOL_CALLS]`, DeepSeek/Kimi/Harmony tokens, …). With
 * `toolDefs`, text from which a call to one of those tools can be extracted (bare JSON calls, pythonic lists)
 * also counts. Used to trigger recovery and to keep raw markup out of empty-answer recovery. Never throws.
 */
export function looksLikeToolCallPayload(text: string, toolDefs?: readonly ToolDefinition[]): boolean {
  if (typeof text !== 'string' || text.length === 0) return false;
  try {
    if (invokePattern.test(text) || functionCallsPattern.test(text)) return true;
    if (text.includes('to=functions.') && text.includes('<|message|>')) return true;
    const lower = lowerCaseAscii(text);
    if (callMarkers.some((marker) => lower.includes(marker))) return true;
    return toolDefs !== undefined && extractToolCallsFromText(text, toolDefs).length > 0;
  } catch {
    return false;
  }
}
