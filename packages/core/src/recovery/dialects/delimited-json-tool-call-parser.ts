import type { ToolDefinition } from '@toolbus/spec';
import { findDelimitedBlocks } from '../delimited-blocks.ts';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { matchJsonToolCalls } from '../match-json-tool-calls.ts';
import { scanJsonValues } from '../scan-json-values.ts';
import { indexToolDefinitions } from '../tool-schema-index.ts';

/** Options for {@link createDelimitedJsonToolCallParser}. */
export interface DelimitedJsonToolCallParserOptions {
  readonly name: string;
  readonly open: string;
  /** Closing markers; none means the block runs to the end of the text (or the next open marker). */
  readonly closes?: readonly string[];
}

/**
 * A dialect whose calls are JSON between an opening and a closing marker (Hermes `<tool_call>`, Mistral
 * `[TOOL_CALLS]`, Llama `<|python_tag|>`, Granite `<|tool_call|>`, ...). Each call's range covers the whole
 * block, markers included, so nothing inside is extracted again and the markup can be cut out as a whole.
 * Bare arguments are not accepted here: inside a call block a JSON object must name its tool.
 */
export function createDelimitedJsonToolCallParser(
  options: DelimitedJsonToolCallParserOptions,
): ToolCallTextParser {
  // Detection looks for the marker as written, in lower case and in upper case: three native searches are
  // far cheaper than lower-casing a long answer for every dialect. Parsing itself ignores case.
  const spellings = [...new Set([options.open, options.open.toLowerCase(), options.open.toUpperCase()])];
  return {
    name: options.name,
    markers: [{ open: options.open, closes: options.closes ?? [] }],
    detect: (text) => spellings.some((spelling) => text.includes(spelling)),
    parse(text: string, toolDefs: readonly ToolDefinition[]): LocatedToolCall[] {
      const tools = indexToolDefinitions(toolDefs);
      const calls: LocatedToolCall[] = [];
      for (const block of findDelimitedBlocks(text, { open: options.open, closes: options.closes ?? [] })) {
        for (const scanned of scanJsonValues(text, { from: block.contentStart, to: block.contentEnd })) {
          for (const call of matchJsonToolCalls(scanned.value, { tools, allowBareArguments: false })) {
            calls.push({ ...call, start: block.start, end: block.end });
          }
        }
      }
      return calls;
    },
  };
}
