import { parseToolArguments } from './parse-tool-arguments.ts';
import { scanJsonValues } from './scan-json-values.ts';

/** A call's arguments read from the text, and where they end. */
export interface ArgumentsAt {
  /** The value as written (an array, a double-encoded string…), for callers that match it to a tool. */
  readonly value: unknown;
  readonly arguments: Record<string, unknown>;
  /** The index after the JSON value. */
  readonly end: number;
}

/**
 * The JSON arguments a dialect writes right at `from` (after whitespace), before `to`: after Kimi's
 * `<|tool_call_argument_begin|>`, Qwen-Agent's `✿ARGS✿:`, Harmony's `<|message|>`, DeepSeek's fenced block.
 * Undefined when no JSON object or array starts there (a repaired value cut off by `to` counts).
 */
export function argumentsAt(text: string, from: number, to = text.length): ArgumentsAt | undefined {
  // One options shape for every call: the scan is hot on hostile text.
  const json = scanJsonValues(text, { from, to, anchored: true })[0];
  return json ? { value: json.value, arguments: parseToolArguments(json.value), end: json.end } : undefined;
}
