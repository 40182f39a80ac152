import type { ToolDefinition } from '@toolbus/spec';
import { findBlocksNamingTools } from '../delimited-blocks.ts';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { parseToolArguments } from '../parse-tool-arguments.ts';
import { scanJsonValues } from '../scan-json-values.ts';
import { createTextScan } from '../text-scan.ts';
import { readIdentifierEnd, skipWhitespace, stripFunctionsPrefix } from '../text-search.ts';

const callBegin = '<｜tool▁call▁begin｜>';
const callEnd = '<｜tool▁call▁end｜>';
const separator = '<｜tool▁sep｜>';

/**
 * DeepSeek special tokens written as text. V3 / R1: `<｜tool▁call▁begin｜>function<｜tool▁sep｜>name` then a
 * ```json fenced object; V3.1 / V3.2: `<｜tool▁call▁begin｜>name<｜tool▁sep｜>{json}`; both end with
 * `<｜tool▁call▁end｜>` and sit inside `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>`.
 */
export const deepSeekToolCallParser: ToolCallTextParser = {
  name: 'deepseek',
  markers: [
    { open: '<｜tool▁calls▁begin｜>', closes: ['<｜tool▁calls▁end｜>'] },
    { open: callBegin, closes: [callEnd] },
  ],
  needles: [separator],
  detect: (text, scan = createTextScan(text)) => scan.has(callBegin),
  parse(text: string, toolDefs: readonly ToolDefinition[], scan = createTextScan(text)): LocatedToolCall[] {
    const tools = scan.tools(toolDefs);
    const calls: LocatedToolCall[] = [];
    // Searched forward only: a missing separator is looked for once, not once per block.
    const separatorSearch = scan.search(separator);
    for (const block of findBlocksNamingTools(text, { open: callBegin, closes: [callEnd] }, scan, toolDefs)) {
      // Text a higher-priority dialect recovered: a call here would be dropped, so it is not read.
      if (scan.recovered.overlaps(block.start, block.end)) continue;
      const separatorAt = separatorSearch.next(block.contentStart);
      if (separatorAt < 0 || separatorAt > block.contentEnd) continue;
      const before = text.slice(block.contentStart, separatorAt).trim();
      let argumentsFrom = separatorAt + separator.length;
      let name = before;
      if (!tools.has(stripFunctionsPrefix(before))) {
        const nameStart = skipWhitespace(text, argumentsFrom, block.contentEnd);
        const nameEnd = readIdentifierEnd(text, nameStart, block.contentEnd);
        name = text.slice(nameStart, nameEnd);
        argumentsFrom = nameEnd;
      }
      const tool = tools.get(stripFunctionsPrefix(name));
      if (!tool) continue;
      let bodyStart = skipWhitespace(text, argumentsFrom, block.contentEnd);
      if (text.startsWith('```', bodyStart)) {
        const lineEnd = text.indexOf('\n', bodyStart);
        if (lineEnd >= 0 && lineEnd < block.contentEnd) bodyStart = lineEnd + 1;
      }
      const json = scanJsonValues(text, { from: bodyStart, to: block.contentEnd, anchored: true })[0];
      calls.push({
        name: tool.name,
        arguments: json ? parseToolArguments(json.value) : {},
        start: block.start,
        end: block.end,
      });
    }
    return calls;
  },
};
