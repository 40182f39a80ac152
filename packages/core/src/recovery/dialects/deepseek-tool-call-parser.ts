import type { ToolDefinition } from '@toolbus/spec';
import { argumentsAt } from '../arguments-at.ts';
import { findBlocksNamingTools } from '../delimited-blocks.ts';
import { endOfTurnToken } from '../end-of-turn-tokens.ts';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { createTextScan, type TextScan } from '../text-scan.ts';
import { readIdentifierEnd, skipWhitespace, stripFunctionsPrefix } from '../text-search.ts';
import { xmlInvokeToolCallParser } from './xml-invoke-tool-call-parser.ts';

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
// ASCII bars, and ASCII bars with underscores. Step3 writes the same tokens with fullwidth bars and underscores
// (`<｜tool_calls_begin｜>`) around its `<steptml:invoke>` calls, which the `xml-invoke` dialect reads.
const spellings: readonly DeepSeekTokens[] = [
  spelled('｜', '▁'),
  spelled('|', '▁'),
  spelled('|', '_'),
  spelled('｜', '_'),
];

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
    // A separator outside a call's tokens (Step3 writes one between two calls) is a token, never text.
    { open: tokens.separator, closes: [], token: true },
  ]),
  needles: spellings.map((tokens) => tokens.separator),
  detect: (text, scan = createTextScan(text)) =>
    spellings.some((tokens) => scan.has(tokens.callBegin) || scan.has(tokens.callsBegin)),
  parse(text: string, toolDefs: readonly ToolDefinition[], scan = createTextScan(text)): LocatedToolCall[] {
    const calls: LocatedToolCall[] = [];
    for (const tokens of spellings) {
      if (scan.has(tokens.callBegin)) calls.push(...parseSpelling(text, toolDefs, scan, tokens));
      if (scan.has(tokens.callsBegin)) calls.push(...parseBareCallsBlocks(text, toolDefs, scan, tokens));
    }
    return calls.sort((left, right) => left.start - right.start);
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
    const separatorEnd = separatorAt + separator.length;
    const call = jsonCallAfterSeparator(text, block, separatorAt, separatorEnd, tools);
    if (call) calls.push(call);
    else calls.push(...invokesInBlock(text, block, separatorEnd, toolDefs));
  }
  return calls;
}

/**
 * `<｜tool▁calls▁begin｜>name<｜tool▁sep｜>{json}<｜tool▁calls▁end｜>`: a calls block whose per-call tokens the
 * model left out (vLLM's V3.1 parser test quotes it). The name, separator and arguments say the call as plainly as
 * with the tokens, and the bare-JSON reading would otherwise take the arguments and leave the name on screen.
 */
function parseBareCallsBlocks(
  text: string,
  toolDefs: readonly ToolDefinition[],
  scan: TextScan,
  tokens: DeepSeekTokens,
): LocatedToolCall[] {
  const tools = scan.tools(toolDefs);
  const calls: LocatedToolCall[] = [];
  const callBeginSearch = scan.search(tokens.callBegin);
  const separatorSearch = scan.search(tokens.separator);
  const marker = { open: tokens.callsBegin, closes: [tokens.callsEnd] };
  for (const block of findBlocksNamingTools(text, marker, scan, toolDefs)) {
    if (scan.recovered.overlaps(block.start, block.end)) continue;
    const callBeginAt = callBeginSearch.next(block.contentStart);
    if (callBeginAt >= 0 && callBeginAt < block.contentEnd) continue;
    const separatorAt = separatorSearch.next(block.contentStart);
    if (separatorAt < 0 || separatorAt > block.contentEnd) continue;
    const call = jsonCallAfterSeparator(
      text,
      block,
      separatorAt,
      separatorAt + tokens.separator.length,
      tools,
    );
    if (call) calls.push(call);
  }
  return calls;
}

interface CallBlock {
  readonly start: number;
  readonly end: number;
  readonly contentStart: number;
  readonly contentEnd: number;
}

/**
 * The call a block writes as a name (before the separator, or after it behind V3's `function` type) and JSON
 * arguments, fenced or not; undefined when the name is no declared tool or a tag stands where the JSON would be.
 */
function jsonCallAfterSeparator(
  text: string,
  block: CallBlock,
  separatorAt: number,
  separatorEnd: number,
  tools: ReturnType<TextScan['tools']>,
): LocatedToolCall | undefined {
  const before = text.slice(block.contentStart, separatorAt).trim();
  let argumentsFrom = separatorEnd;
  let name = before;
  if (!tools.has(stripFunctionsPrefix(before))) {
    const nameStart = skipWhitespace(text, argumentsFrom, block.contentEnd);
    const nameEnd = readIdentifierEnd(text, nameStart, block.contentEnd);
    name = text.slice(nameStart, nameEnd);
    argumentsFrom = nameEnd;
  }
  const tool = tools.get(stripFunctionsPrefix(name));
  if (!tool) return undefined;
  let bodyStart = skipWhitespace(text, argumentsFrom, block.contentEnd);
  if (text.startsWith('```', bodyStart)) {
    const lineEnd = text.indexOf('\n', bodyStart);
    if (lineEnd >= 0 && lineEnd < block.contentEnd) bodyStart = lineEnd + 1;
  }
  const body = argumentsAt(text, bodyStart, block.contentEnd);
  if (body === undefined && text.charCodeAt(bodyStart) === 0x3c) return undefined;
  return { name: tool.name, arguments: body?.arguments ?? {}, start: block.start, end: block.end };
}

/**
 * Step3's calls: `<steptml:invoke name="x">` elements after the separator (the `xml-invoke` dialect reads them),
 * each covering the whole block, so the tokens and the `function` type around the element go with the call.
 */
function invokesInBlock(
  text: string,
  block: CallBlock,
  from: number,
  toolDefs: readonly ToolDefinition[],
): LocatedToolCall[] {
  return xmlInvokeToolCallParser
    .parse(text.slice(from, block.contentEnd), toolDefs)
    .map((call) => ({ ...call, start: block.start, end: block.end }));
}
