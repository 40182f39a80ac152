import type { ToolDefinition } from '@toolbus/spec';
import { extractToolCallsFromText } from './extract-tool-calls-from-text.ts';
import type { ToolCallTextParser } from './extracted-tool-call.ts';
import { hasToolCallMarker } from './tool-call-markup-marker.ts';
import {
  defaultToolCallMarkupMarkers,
  defaultToolCallParsers,
  type ToolCallParserRegistry,
  toolCallMarkupMarkersOf,
} from './tool-call-parser-registry.ts';

/**
 * The recovery gate, for every dialect: true when the text carries the markup a registered dialect parser
 * declares (`<function_calls>`, an `<invoke name=…>` element — zero-parameter invokes included —,
 * `<tool_call>`, `[TOOL_CALLS]`, DeepSeek/Kimi/Harmony tokens, …). With `toolDefs`, text from which a call to
 * one of those tools can be extracted (bare JSON calls, pythonic lists) also counts. Used to trigger recovery
 * and to keep raw markup out of empty-answer recovery. Never throws.
 */
export function looksLikeToolCallPayload(
  text: string,
  toolDefs?: readonly ToolDefinition[],
  parsers: readonly ToolCallTextParser[] | ToolCallParserRegistry = defaultToolCallParsers,
): boolean {
  if (typeof text !== 'string' || text.length === 0) return false;
  try {
    const markers =
      parsers === defaultToolCallParsers ? defaultToolCallMarkupMarkers : toolCallMarkupMarkersOf(parsers);
    if (hasToolCallMarker(text, markers)) return true;
    return toolDefs !== undefined && extractToolCallsFromText(text, toolDefs, { parsers }).length > 0;
  } catch {
    return false;
  }
}
