import type { ToolDefinition } from '@toolbus/spec';
import { argumentsAt } from '../arguments-at.ts';
import { findBlocksNamingTools } from '../delimited-blocks.ts';
import { endOfTurnToken } from '../end-of-turn-tokens.ts';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { createTextScan, type TextScan } from '../text-scan.ts';
import { readIdentifierEnd, skipWhitespace, stripFunctionsPrefix } from '../text-search.ts';

/** One spelling of DeepSeek's tool-call tokens. */
interface DeepSeekTokens {
  readonly callsBegin: string;
  readonly callsEnd: string;
  readonly callBegin: string;
  readonly callEnd: string;
  readonly separator: string;
}

function spelled(bar: string, space: string): DeepSeekTokens {
  const token = (words: string) => `<${bar}${words.replaceAll(' ', space)}${bar}>`;
  return {
    callsBegin: token('tool calls begin'),
    callsEnd: token('tool calls end'),
    callBegin: token('tool call begin'),
    callEnd: token('tool call end'),
    separator: token('tool sep'),
  };
}

// The tokenizer's own spelling (fullwidth bars, `▁` for spaces), then what some servers and clients turn it into:
// ASCII bars, and ASCII bars with underscores.
const spellings: readonly DeepSeekTokens[] = [spelled('｜', '▁'), spelled('|', '▁'), spelled('|', '_')];

/**
 * DeepSeek special tokens written as text. V3 / R1: `<｜tool▁call▁begin｜>function<｜tool▁sep｜>name` then a
 * ```json fenced object; V3.1 / V3.2: `<｜tool▁call▁begin｜>name<｜tool▁sep｜>{json}`; both end with
 * `<｜tool▁call▁end｜>` and sit inside `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>`. The tokens are also read
 * with ASCII bars (`<|tool▁call▁begin|>`) and with underscores (`<|tool_call_begin|>`).
 */
export const deepSeekToolCallParser: ToolCallTextParser = {
  name: 'deepseek',
  markers: spellings.flatMap((tokens) => [
    { open: tokens.callsBegin, closes: [tokens.callsEnd, endOfTurnToken.deepSeek] },
    { open: tokens.callBegin, closes: [tokens.callEnd] },
  ]),
  needles: spellings.map((tokens) => tokens.separator),
  detect: (text, scan = createTextScan(text)) => spellings.some((tokens) => scan.has(tokens.callBegin)),
  parse(text: string, toolDefs: readonly ToolDefinition[], scan = createTextScan(text)): LocatedToolCall[] {
    const calls: LocatedToolCall[] = [];
    for (const tokens of spellings) {
      if (scan.has(tokens.callBegin)) calls.push(...parseSpelling(text, toolDefs, scan, tokens));
    }
    return calls;
  },
};

function parseSpelling(
  text: string,
  toolDefs: readonly ToolDefinition[],
  scan: TextScan,
  tokens: DeepSeekTokens,
): LocatedToolCall[] {
  const tools = scan.tools(toolDefs);
  const calls: LocatedToolCall[] = [];
  const { callBegin, callEnd, separator } = tokens;
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
    calls.push({
      name: tool.name,
      arguments: argumentsAt(text, bodyStart, block.contentEnd)?.arguments ?? {},
      start: block.start,
      end: block.end,
    });
  }
  return calls;
}
