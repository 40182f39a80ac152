import type { ToolDefinition } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { extractToolCallsFromText } from './extract-tool-calls-from-text.ts';
import type { ToolCallTextParser } from './extracted-tool-call.ts';
import type { ToolCallParserRegistry } from './tool-call-parser-registry.ts';

// The parts of a call whatever tool it names: `<invoke name=`, Qwen3-Coder's `<function=name` and
// `<parameter=name`, a `<parameter name=`, a JSON `"name":` / `"arguments":` / `"parameters":` key, Harmony's
// `to=functions.name` recipient.
const callShape =
  /<invoke\s+name\s*=|<(?:function|parameter)=\w|<parameter\s+name\s*=|["'](?:name|arguments|parameters)["']\s*:|\bto=functions\.\w/i;

/**
 * Whether text holds something shaped like a call to any tool (see {@link holdsToolCall}), without extracting:
 * a cheap first test.
 */
export function hasToolCallShape(text: string): boolean {
  return callShape.test(text);
}

/**
 * Whether text holds a tool call: one of a declared tool can be extracted, or something shaped like a call to
 * any tool is there (a call to an unknown tool is still a call, and never an answer). Stricter than
 * `looksLikeToolCallPayload`, which also counts a bare marker: a marker around prose ("wrap calls in
 * `<tool_call>` tags") is not a call, and such text is shown as written.
 */
export function holdsToolCall(
  text: string,
  toolDefs: readonly ToolDefinition[],
  parsers?: readonly ToolCallTextParser[] | ToolCallParserRegistry,
): boolean {
  return (
    hasToolCallShape(text) || extractToolCallsFromText(text, toolDefs, omitUndefined({ parsers })).length > 0
  );
}
