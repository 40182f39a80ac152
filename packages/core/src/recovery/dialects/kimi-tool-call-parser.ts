import type { ToolDefinition } from '@toolbus/spec';
import { argumentsAt } from '../arguments-at.ts';
import { findDelimitedBlocks } from '../delimited-blocks.ts';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { matchJsonToolCalls } from '../match-json-tool-calls.ts';
import { createTextScan } from '../text-scan.ts';
import { stripFunctionsPrefix } from '../text-search.ts';

const callBegin = '<|tool_call_begin|>';
const callEnd = '<|tool_call_end|>';
const argumentBegin = '<|tool_call_argument_begin|>';

/**
 * Kimi K2 / K2.5: `<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{json}<|tool_call_end|>`
 * inside `<|tool_calls_section_begin|>…<|tool_calls_section_end|>`. Quantised Kimi writes an id such as
 * `tool_call_1` instead of `functions.NAME:IDX`; then the arguments are matched to a tool like bare arguments
 * (only when exactly one tool fits).
 */
export const kimiToolCallParser: ToolCallTextParser = {
  name: 'kimi',
  markers: [
    { open: '<|tool_calls_section_begin|>', closes: ['<|tool_calls_section_end|>'] },
    { open: callBegin, closes: [callEnd] },
  ],
  needles: [argumentBegin],
  detect: (text, scan = createTextScan(text)) => scan.has(callBegin),
  parse(text: string, toolDefs: readonly ToolDefinition[], scan = createTextScan(text)): LocatedToolCall[] {
    const tools = scan.tools(toolDefs);
    const calls: LocatedToolCall[] = [];
    // Searched forward only: a missing argument marker is looked for once, not once per block.
    const argumentSearch = scan.search(argumentBegin);
    for (const block of findDelimitedBlocks(text, { open: callBegin, closes: [callEnd] }, scan)) {
      const argumentAt = argumentSearch.next(block.contentStart);
      if (argumentAt < 0 || argumentAt > block.contentEnd) continue;
      const identifier = stripFunctionsPrefix(text.slice(block.contentStart, argumentAt).trim());
      const name = identifier.replace(/:\d+$/, '');
      const written = argumentsAt(text, argumentAt + argumentBegin.length, block.contentEnd);
      const tool = tools.get(name);
      if (tool) {
        calls.push({
          name: tool.name,
          arguments: written?.arguments ?? {},
          start: block.start,
          end: block.end,
        });
      } else if (written) {
        const [matched] = matchJsonToolCalls(written.value, { tools, allowBareArguments: true });
        if (matched) calls.push({ ...matched, start: block.start, end: block.end });
      }
    }
    return calls;
  },
};
