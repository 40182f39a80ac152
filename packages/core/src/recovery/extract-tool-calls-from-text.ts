import type { ToolDefinition } from '@toolbus/spec';
import { callsEndingReasoning } from './calls-ending-reasoning.ts';
import { CodeSpanTracker } from './code-span-tracker.ts';
import { findDelimitedBlocks } from './delimited-blocks.ts';
import { harmonyAnalysisHeader } from './dialects/harmony-tool-call-parser.ts';
import { thinkingBlockParser, thinkingTag } from './dialects/thinking-block-parser.ts';
import { endOfTurnTokens } from './end-of-turn-tokens.ts';
import type { LocatedToolCall, ToolCallTextParser } from './extracted-tool-call.ts';
import { imitatedResultStart, toolResultMarkers } from './imitated-tool-result.ts';
import { mayCallDeclaredTool } from './names-as-written.ts';
import { isPlainObject, parseToolArguments } from './parse-tool-arguments.ts';
import { isQuotedExample } from './quoted-example.ts';
import { createTextScan, type TextScan } from './text-scan.ts';
import { skipWhitespace } from './text-search.ts';
import type { ToolCallMarkupMarker } from './tool-call-markup-marker.ts';
import { defaultToolCallParsers, type ToolCallParserRegistry } from './tool-call-parser-registry.ts';
import { indexToolDefinitions } from './tool-schema-index.ts';

/** Options for {@link extractToolCallsFromText}. */
export interface ExtractToolCallsOptions {
  /** The dialect parsers to use, in priority order (default: `defaultToolCallParsers`). */
  readonly parsers?: readonly ToolCallTextParser[] | ToolCallParserRegistry;
  /** At most this many calls are returned (default 256): a model writing more is not making tool calls. */
  readonly maxCalls?: number;
  /**
   * Dialect parser names tried first, alone (a model profile's dialects); every parser runs only when these find
   * nothing. Fewer dialects means fewer chances to read prose as a call.
   */
  readonly preferredDialects?: readonly string[];
}

/**
 * Recovers the tool calls a model wrote as text (weak and self-hosted models often do), in order of appearance. Every dialect parser
 * whose cheap `detect` fires reads the text; a parser's calls are kept only when their range does not overlap
 * text already claimed by a higher-priority parser, which is how the inner arguments object of a call (or the
 * JSON body inside a dialect's tags) is never extracted a second time, wherever it sits. Calls to unknown
 * tools are dropped. Linear in the text length; never throws (a failing parser is skipped).
 */
export function extractToolCallsFromText(
  text: string,
  toolDefs: readonly ToolDefinition[],
  options: ExtractToolCallsOptions = {},
): Array<{ name: string; arguments: Record<string, unknown> }> {
  return extractLocatedToolCallsFromText(text, toolDefs, options).map((call) => ({
    name: call.name,
    arguments: call.arguments,
  }));
}

/** Like {@link extractToolCallsFromText}, keeping each call's range in the text (used to cut markup out). */
export function extractLocatedToolCallsFromText(
  text: string,
  toolDefs: readonly ToolDefinition[],
  options: ExtractToolCallsOptions = {},
): LocatedToolCall[] {
  try {
    // Most answers name no declared tool: then no parser can read a call of one, and the text is not scanned.
    if (
      typeof text === 'string' &&
      Array.isArray(toolDefs) &&
      !mayCallDeclaredTool(text, toolDefs, resolveParsers(options.parsers))
    )
      return [];
    const preferred = options.preferredDialects;
    if (preferred && preferred.length > 0) {
      const first = preferredParsers(resolveParsers(options.parsers), preferred);
      if (first.length > 0) {
        const found = locateToolCalls(text, toolDefs, { ...options, parsers: first });
        if (found.length > 0) return found;
      }
    }
    return locateToolCalls(text, toolDefs, options);
  } catch {
    // Hostile tool definitions (getters that throw, say) must not break a turn: recovery just finds nothing.
    return [];
  }
}

const preferredSubsets = new WeakMap<
  readonly ToolCallTextParser[],
  Map<string, readonly ToolCallTextParser[]>
>();

// The same list for the same parsers and dialect names: the scan's needles and their compiled trie are cached per
// parser list, so a list built afresh for every answer would compile them again each time (milliseconds).
function preferredParsers(
  all: readonly ToolCallTextParser[],
  preferred: readonly string[],
): readonly ToolCallTextParser[] {
  let subsets = preferredSubsets.get(all);
  if (subsets === undefined) {
    subsets = new Map();
    preferredSubsets.set(all, subsets);
  }
  const key = preferred.join('\n');
  let subset = subsets.get(key);
  if (subset === undefined) {
    subset = preferred.flatMap((name) => all.filter((parser) => parser.name === name));
    subsets.set(key, subset);
  }
  return subset;
}

function locateToolCalls(
  original: string,
  toolDefs: readonly ToolDefinition[],
  options: ExtractToolCallsOptions,
): LocatedToolCall[] {
  if (
    typeof original !== 'string' ||
    original.length === 0 ||
    !Array.isArray(toolDefs) ||
    toolDefs.length === 0
  )
    return [];
  let text = original;
  const tools = indexToolDefinitions(toolDefs);
  const parsers = resolveParsers(options.parsers);
  // One pass over the text finds every parser's markers and needles; each parser then reads from those.
  let scan = scanFor(text, parsers);
  // `</parameter >`: the space moves before the tag, so every index stays the same (a range still ends after the
  // tag's `>`) and parsers see `</parameter>`; the moved spaces shift the markers, so the text is scanned again.
  if (hasSpacedClosingTag(text, scan.positions('</'))) {
    text = text.replace(spacedClosingTagAll, '$2</$1>');
    scan = scanFor(text, parsers);
  }
  // Shared with the parsers through the scan: a call overlapping these would be dropped, so they may skip it.
  const claimed = scan.recovered;
  const accepted: LocatedToolCall[] = [];
  // Where the first block that ends the model's turn closes (see `ToolCallMarkupMarker.endsTurn`).
  let turnEnd = Number.POSITIVE_INFINITY;
  for (const parser of parsers) {
    let found: LocatedToolCall[];
    try {
      if (!parser.detect(text, scan)) continue;
      found = parser.parse(text, toolDefs, scan);
      if (!Array.isArray(found)) continue;
    } catch {
      continue;
    }
    // The calls of one range form a group (an array of calls), in the order their ranges first appear.
    const groups: LocatedToolCall[][] = [];
    const groupsByStart = new Map<number, LocatedToolCall[][]>();
    for (const call of found) {
      if (!isValidCall(call) || !tools.has(call.name)) continue;
      const last = groups[groups.length - 1];
      if (last !== undefined && last[0]!.start === call.start && last[0]!.end === call.end) {
        last.push(call);
        continue;
      }
      const sameStart = groupsByStart.get(call.start);
      const group = sameStart?.find((candidate) => candidate[0]!.end === call.end);
      if (group) {
        group.push(call);
        continue;
      }
      groups.push([call]);
      if (sameStart) sameStart.push(groups[groups.length - 1]!);
      else groupsByStart.set(call.start, [groups[groups.length - 1]!]);
    }
    const endsTurn = parser.markers?.some((marker) => marker.endsTurn === true) === true;
    for (const group of groups) {
      const first = group[0]!;
      if (claimed.overlaps(first.start, first.end)) continue;
      const end = endOfTurnTokenEnd(text, first.end);
      claimed.add(first.start, end);
      if (endsTurn && end < turnEnd) turnEnd = end;
      for (const call of group) {
        accepted.push({
          name: call.name,
          arguments: parseToolArguments(call.arguments),
          start: call.start,
          end,
        });
      }
    }
  }
  // A stable sort keeps the calls of one group (an array of calls) in their written order.
  accepted.sort((left, right) => left.start - right.start);
  // A result the model wrote for its own call is invented: calls after it were not made either.
  const imitated = imitatedResultStart(text, accepted, scan);
  const stop = imitated >= 0 ? Math.min(imitated, turnEnd) : turnEnd;
  // …and so is a call written after the model's turn ended.
  const cut = stop < text.length ? accepted.findIndex((call) => call.start >= stop) : -1;
  if (cut >= 0) accepted.length = cut;
  return withoutThinkingDrafts(text, withoutInlineCode(text, accepted), scan, parsers).slice(
    0,
    options.maxCalls ?? 256,
  );
}

/**
 * A call written in inline code (`` use `{"name": …}` to search ``) documents a call, it does not make one; a
 * fenced block is a call, unless the prose around the fence says it shows an example (see `isQuotedExample`) or
 * code other than calls stands before it in the block (see `fenceOpening`). `calls` is sorted by start. Looked at only when
 * calls were found.
 */
function withoutInlineCode(text: string, calls: LocatedToolCall[]): LocatedToolCall[] {
  if (calls.length === 0 || !text.includes('`')) return calls;
  const code = new CodeSpanTracker();
  let at = 0;
  // The fenced block the last call was in (by `fencesOpened`), and where its calls so far end (its info line's end
  // before the first): a call there opens the block when only blanks, separators or tags stand before it. -1: the
  // block showed code first, so none of its calls is one; a block never closed is not read so (a model that forgot
  // its close still calls). Each block's text is read once.
  let fence = -1;
  let from = -1;
  return calls.filter((call) => {
    if (call.start > at) {
      code.advance(text, at, call.start);
      at = call.start;
    }
    if (code.inInlineCode) return false;
    if (!code.inCode) return true;
    if (isQuotedExample(text, call)) return false;
    if (code.fencesOpened !== fence) {
      fence = code.fencesOpened;
      // Infinity: every call of a block never closed counts.
      from = text.includes('```', call.end) ? fenceContentStart(text, call.start) : Number.POSITIVE_INFINITY;
    }
    if (from < 0 || (from < call.start && !fenceOpening.test(text.slice(from, call.start)))) {
      from = -1;
      return false;
    }
    from = Math.max(from, call.end);
    return true;
  });
}

/** Where the content of the fenced block holding `callStart` starts: after its info line (`callStart` on it). */
function fenceContentStart(text: string, callStart: number): number {
  const infoEnd = text.indexOf('\n', text.lastIndexOf('```', callStart));
  return infoEnd < 0 || infoEnd > callStart ? callStart : infoEnd;
}

// What may stand before a call that opens a fenced block, or between two calls in it: blanks, a list's `[` or
// `,`, the tags that wrap call markup (`<function_calls>`), `print(` (Gemma's `tool_code`). A model that calls in a
// fence writes the call first; a call further down, after other code (`import x` then `get_weather(…)`), is code
// shown to the reader, and the answer filter shows it so.
const fenceOpening = /^(?:[\s,]|<[^<>\n]{1,64}>)*(?:\[\s*|print\(\s*)?$/;

/** Where a call ending at `end` really ends: past an end-of-turn token right after it, which goes with it. */
function endOfTurnTokenEnd(text: string, end: number): number {
  const at = skipWhitespace(text, end);
  if (text.charCodeAt(at) !== 0x3c) return end;
  const token = endOfTurnTokens.find((candidate) => text.startsWith(candidate, at));
  return token ? at + token.length : end;
}

// After a `</`: the tag name, then the space before `>`.
const spacedClosingTagTail = /[^\s<>/]{1,40}\s+>/y;
const spacedClosingTagAll = /<\/([^\s<>/]{1,40})(\s+)>/g;

// Whether `text` holds a match of `spacedClosingTagAll`, tried at each `</` the scan found.
function hasSpacedClosingTag(text: string, closingTagStarts: readonly number[]): boolean {
  for (const at of closingTagStarts) {
    spacedClosingTagTail.lastIndex = at + 2;
    if (spacedClosingTagTail.test(text)) return true;
  }
  return false;
}

/**
 * A model that thinks aloud (`<think>…</think>`, Seed-OSS's `<seed:think>`, Gemma 4's thought channel, Harmony's
 * analysis channel) often drafts the call there before writing the real one: when calls stand outside the
 * thinking, the drafts inside it are not calls. When every call is inside the thinking, the model acted there
 * only if its thinking ends with them (Qwen3.5 writes its calls before `</think>`, see llama.cpp #23678); a call
 * that more thinking follows ("The format is <seed:tool_call>…. Wait, but…") was quoted or rehearsed, not made.
 */
function withoutThinkingDrafts(
  text: string,
  calls: LocatedToolCall[],
  scan: TextScan,
  parsers: readonly ToolCallTextParser[],
): LocatedToolCall[] {
  if (calls.length === 0) return calls;
  const blocks = reasoningBlocks(text, scan, parsers);
  if (blocks.length === 0) return calls;
  const blockOf = (call: LocatedToolCall) =>
    blocks.find((block) => call.start >= block.contentStart && call.end <= block.end);
  const outside = calls.filter((call) => blockOf(call) === undefined);
  if (outside.length > 0) return outside;
  return blocks.flatMap((block) =>
    callsEndingReasoning(
      text,
      calls.filter((call) => blockOf(call) === block),
      block.contentEnd,
    ),
  );
}

interface ReasoningBlock {
  readonly contentStart: number;
  readonly contentEnd: number;
  readonly end: number;
}

/** The reasoning blocks of `text`: the parsers' reasoning markers, and thinking the chat template opened. */
function reasoningBlocks(
  text: string,
  scan: TextScan,
  parsers: readonly ToolCallTextParser[],
): ReasoningBlock[] {
  const blocks: ReasoningBlock[] = [];
  for (const marker of reasoningMarkersOf(parsers)) {
    const analysis = marker.open === harmonyAnalysisHeader;
    if (scan.positions(marker.open, analysis).length === 0) continue;
    blocks.push(...findDelimitedBlocks(text, { open: marker.open, closes: marker.closes }, scan));
  }
  // Templates that open the thinking in the prompt (Qwen3 thinking models, DeepSeek R1-0528 and V3.1) make the
  // model write only the close: everything before a first `</think>` that no `<think>` opened is thinking.
  const closes = scan.positions(thinkingTag.close);
  const opens = scan.positions(thinkingTag.open);
  const firstClose = closes[0];
  if (firstClose !== undefined && (opens.length === 0 || opens[0]! > firstClose))
    blocks.push({ contentStart: 0, contentEnd: firstClose, end: firstClose + thinkingTag.close.length });
  return blocks;
}

const reasoningMarkers = new WeakMap<readonly ToolCallTextParser[], readonly ToolCallMarkupMarker[]>();

function reasoningMarkersOf(parsers: readonly ToolCallTextParser[]): readonly ToolCallMarkupMarker[] {
  let markers = reasoningMarkers.get(parsers);
  if (!markers) {
    // The thinking tags count even when the parsers given leave the thinking parser out (a profile's dialects).
    const all = [...thinkingBlockParser.markers!, ...parsers.flatMap((parser) => parser.markers ?? [])];
    const byOpen = new Map<string, ToolCallMarkupMarker>();
    for (const marker of all) if (marker.reasoning === true) byOpen.set(marker.open, marker);
    markers = [...byOpen.values()];
    reasoningMarkers.set(parsers, markers);
  }
  return markers;
}

const scanNeedles = new WeakMap<readonly ToolCallTextParser[], readonly string[]>();

function scanFor(text: string, parsers: readonly ToolCallTextParser[]): TextScan {
  let needles = scanNeedles.get(parsers);
  if (!needles) {
    // The result markers too: a result the model imitates after its call ends what it asked for.
    const all = new Set<string>([thinkingTag.open, thinkingTag.close, '</', ...toolResultMarkers]);
    // Reasoning blocks are found in every text: calls drafted inside them are told apart from calls made.
    for (const marker of reasoningMarkersOf(parsers)) {
      all.add(marker.open);
      for (const close of marker.closes) all.add(close);
    }
    for (const parser of parsers) {
      for (const marker of parser.markers ?? []) {
        // A stand-alone marker holds no call: parsers never look for it.
        if (marker.token === true) continue;
        all.add(marker.open);
        for (const close of marker.closes) all.add(close);
      }
      for (const needle of parser.needles ?? []) all.add(needle);
    }
    needles = [...all];
    scanNeedles.set(parsers, needles);
  }
  return createTextScan(text, needles);
}

function resolveParsers(
  parsers: readonly ToolCallTextParser[] | ToolCallParserRegistry | undefined,
): readonly ToolCallTextParser[] {
  if (parsers === undefined) return defaultToolCallParsers;
  if (Array.isArray(parsers)) return parsers;
  return (parsers as ToolCallParserRegistry).list();
}

function isValidCall(call: unknown): call is LocatedToolCall {
  if (!isPlainObject(call)) return false;
  const candidate = call as Partial<LocatedToolCall>;
  return (
    typeof candidate.name === 'string' &&
    isPlainObject(candidate.arguments) &&
    Number.isFinite(candidate.start) &&
    Number.isFinite(candidate.end) &&
    (candidate.end as number) >= (candidate.start as number)
  );
}
