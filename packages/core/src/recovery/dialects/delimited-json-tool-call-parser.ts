import type { ToolDefinition } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { findBlocksNamingTools } from '../delimited-blocks.ts';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { matchJsonToolCalls } from '../match-json-tool-calls.ts';
import { readsNamesAsWritten } from '../names-as-written.ts';
import { scanJsonValues } from '../scan-json-values.ts';
import { createTextScan, type TextScan } from '../text-scan.ts';
import { skipWhitespace } from '../text-search.ts';

/** Options for {@link createDelimitedJsonToolCallParser}. */
export interface DelimitedJsonToolCallParserOptions {
  readonly name: string;
  readonly open: string;
  /** Closing markers; none means the block runs to the end of the text (or the next open marker). */
  readonly closes?: readonly string[];
  /** The template ends the turn where the block closes (see {@link ToolCallMarkupMarker.endsTurn}). */
  readonly endsTurn?: boolean;
  /** Other pairs of markers the same JSON calls are read between (llama.cpp's Hermes parser takes several tags). */
  readonly alsoBetween?: readonly { readonly open: string; readonly closes: readonly string[] }[];
}

/**
 * A dialect whose calls are JSON between an opening and a closing marker (Hermes `<tool_call>`, Mistral
 * `[TOOL_CALLS]`, Llama `<|python_tag|>`, Granite `<|tool_call|>`, ...). Each call's range covers the whole
 * block, markers included, so nothing inside is extracted again and the markup can be cut out as a whole; a
 * block without a closing marker ends with its JSON values.
 * Bare arguments are not accepted here: inside a call block a JSON object must name its tool. The JSON is read
 * where the block starts (see `blockValues`).
 */
export function createDelimitedJsonToolCallParser(
  options: DelimitedJsonToolCallParserOptions,
): ToolCallTextParser {
  const pairs = [{ open: options.open, closes: options.closes ?? [] }, ...(options.alsoBetween ?? [])];
  // Names are read from the JSON: as written, or spelled with escapes.
  return readsNamesAsWritten({
    name: options.name,
    markers: pairs.map((pair) => ({ ...pair, ...omitUndefined({ endsTurn: options.endsTurn }) })),
    detect: (text, scan = createTextScan(text)) => pairs.some((pair) => scan.has(pair.open)),
    parse(text: string, toolDefs: readonly ToolDefinition[], scan = createTextScan(text)): LocatedToolCall[] {
      const calls: LocatedToolCall[] = [];
      for (const pair of pairs)
        if (scan.has(pair.open)) calls.push(...callsBetween(text, pair, toolDefs, scan));
      return pairs.length > 1 ? calls.sort((a, b) => a.start - b.start) : calls;
    },
  });
}

// The calls in the blocks between one pair of markers.
function callsBetween(
  text: string,
  marker: { readonly open: string; readonly closes: readonly string[] },
  toolDefs: readonly ToolDefinition[],
  scan: TextScan,
): LocatedToolCall[] {
  const tools = scan.tools(toolDefs);
  const calls: LocatedToolCall[] = [];
  // Inside a call block a JSON object must name its tool: only blocks holding a tool's name are read.
  // A marker that opens the list itself (`functools[`) leaves the list's `]` after the calls.
  const opensList = marker.open.endsWith('[');
  for (const block of findBlocksNamingTools(text, marker, scan, toolDefs)) {
    // Text a higher-priority dialect recovered: a call here would be dropped, so it is not read.
    if (scan.recovered.overlaps(block.start, block.end)) continue;
    const { values, end } = blockValues(text, block.contentStart, block.contentEnd, opensList);
    // A block with no closing marker runs on to the end of the text: the calls end with their JSON, and
    // the prose a model writes after them (Granite, Mistral's array form) stays prose.
    const callsEnd = block.end === block.contentEnd ? end : block.end;
    for (const value of values) {
      for (const call of matchJsonToolCalls(value, { tools, allowBareArguments: false })) {
        calls.push({ ...call, start: block.start, end: callsEnd });
      }
    }
  }
  return calls;
}

/**
 * The JSON values a block starts with: one right after the marker (past whitespace, a `<|plugin|>`-style token
 * and a code fence opener), then each one joined to it by `;` or `,` (Llama 3.2 writes several calls so) or by
 * whitespace alone (MiniMax-M1's one call per line).
 * Anchored reads cost the length of the values, not of the block, so text full of unclosed markers stays
 * linear; JSON elsewhere in a block is left to the catch-all JSON scan.
 */
function blockValues(
  text: string,
  from: number,
  to: number,
  opensList: boolean,
): { values: unknown[]; end: number } {
  const values: unknown[] = [];
  let position = skipPreamble(text, from, to);
  let end = position;
  while (position < to) {
    const scanned = scanJsonValues(text, { from: position, to, anchored: true })[0];
    if (!scanned) break;
    values.push(scanned.value);
    end = skipFenceClose(text, scanned.end, to);
    position = skipWhitespace(text, scanned.end, to);
    // MiniMax-M1 writes one call per line inside `<tool_calls>`, with no separator.
    if (text[position] === '{') continue;
    if (text[position] !== ';' && text[position] !== ',') break;
    position = skipWhitespace(text, position + 1, to);
  }
  if (opensList && values.length > 0 && text[position] === ']') end = position + 1;
  return { values, end };
}

// Past the fence that closes a fenced value (`[TOOL_CALLS]` then ```json … ```), when one follows it.
function skipFenceClose(text: string, from: number, to: number): number {
  const at = skipWhitespace(text, from, to);
  return text.startsWith('```', at) && at + 3 <= to ? at + 3 : from;
}

function skipPreamble(text: string, from: number, to: number): number {
  let position = skipWhitespace(text, from, to);
  if (text.startsWith('<|', position)) {
    const end = text.indexOf('|>', position + 2);
    if (end >= 0 && end - position <= 32 && end < to) position = skipWhitespace(text, end + 2, to);
  }
  if (text.startsWith('```', position)) {
    const lineEnd = text.indexOf('\n', position);
    if (lineEnd >= 0 && lineEnd - position <= 24 && lineEnd < to)
      position = skipWhitespace(text, lineEnd + 1, to);
  }
  return position;
}
