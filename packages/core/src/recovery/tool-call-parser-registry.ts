import { deepSeekToolCallParser } from './dialects/deepseek-tool-call-parser.ts';
import { createDelimitedJsonToolCallParser } from './dialects/delimited-json-tool-call-parser.ts';
import { functionTagToolCallParser } from './dialects/function-tag-tool-call-parser.ts';
import { functionaryToolCallParser } from './dialects/functionary-tool-call-parser.ts';
import { gemmaToolCallParser } from './dialects/gemma-tool-call-parser.ts';
import { harmonyToolCallParser } from './dialects/harmony-tool-call-parser.ts';
import { jsonToolCallParser } from './dialects/json-tool-call-parser.ts';
import { kimiToolCallParser } from './dialects/kimi-tool-call-parser.ts';
import { mistralArgumentsToolCallParser } from './dialects/mistral-args-tool-call-parser.ts';
import { namedToolCallTagParser } from './dialects/named-tool-call-tag-parser.ts';
import { pythonicToolCallParser } from './dialects/pythonic-tool-call-parser.ts';
import { qwenAgentToolCallParser } from './dialects/qwen-agent-tool-call-parser.ts';
import { reactToolCallParser } from './dialects/react-tool-call-parser.ts';
import { thinkingBlockParser } from './dialects/thinking-block-parser.ts';
import { toolNameTagParser } from './dialects/tool-name-tag-parser.ts';
import { xmlInvokeToolCallParser } from './dialects/xml-invoke-tool-call-parser.ts';
import { endOfTurnToken } from './end-of-turn-tokens.ts';
import type { ToolCallTextParser } from './extracted-tool-call.ts';
import { readsNamesAsWritten } from './names-as-written.ts';
import type { ToolCallMarkupMarker } from './tool-call-markup-marker.ts';

/**
 * The built-in dialect parsers, highest priority first. When two parsers claim overlapping text, the earlier
 * one wins, so dialects with unmistakable special tokens come first and the catch-all JSON scan comes last
 * (docs/ARCHITECTURE.md lists the dialects and the models that write them).
 */
export const defaultToolCallParsers: readonly ToolCallTextParser[] = Object.freeze([
  thinkingBlockParser,
  harmonyToolCallParser,
  kimiToolCallParser,
  deepSeekToolCallParser,
  mistralArgumentsToolCallParser,
  gemmaToolCallParser,
  functionaryToolCallParser,
  xmlInvokeToolCallParser,
  functionTagToolCallParser,
  namedToolCallTagParser,
  qwenAgentToolCallParser,
  // A model that ends its ChatML turn without closing the tag ends the block too.
  createDelimitedJsonToolCallParser({
    name: 'hermes',
    open: '<tool_call>',
    closes: ['</tool_call>', endOfTurnToken.chatMl],
  }),
  // llama.cpp's Hermes 2 Pro parser also reads a call's JSON between these tags, which models write in its place.
  // Not `<response>`, which it reads too: Granite 3.3 wraps its whole answer in it after thinking, and as markup
  // that answer would be held until its close instead of streaming.
  createDelimitedJsonToolCallParser({
    name: 'hermes-tags',
    open: '<tool>',
    closes: ['</tool>'],
    alsoBetween: [
      { open: '<json>', closes: ['</json>'] },
      { open: '<xml>', closes: ['</xml>'] },
    ],
  }),
  createDelimitedJsonToolCallParser({ name: 'mistral', open: '[TOOL_CALLS]' }),
  createDelimitedJsonToolCallParser({
    name: 'llama3-json',
    open: '<|python_tag|>',
    closes: [endOfTurnToken.llamaMessage, endOfTurnToken.llamaTurn],
  }),
  // Granite writes no closing token; Phi-4 closes the same token with `<|/tool_call|>`.
  createDelimitedJsonToolCallParser({ name: 'granite', open: '<|tool_call|>', closes: ['<|/tool_call|>'] }),
  createDelimitedJsonToolCallParser({
    name: 'granite-20b-fc',
    open: '<function_call>',
    closes: ['</function_call>'],
  }),
  createDelimitedJsonToolCallParser({ name: 'nemotron', open: '<TOOLCALL>', closes: ['</TOOLCALL>'] }),
  // Qwen 2.5 sometimes wraps its call in the `<tools>` tag its system prompt lists the tools in.
  createDelimitedJsonToolCallParser({ name: 'qwen-tools', open: '<tools>', closes: ['</tools>'] }),
  createDelimitedJsonToolCallParser({
    name: 'longcat',
    open: '<longcat_tool_call>',
    closes: ['</longcat_tool_call>'],
  }),
  // Hunyuan A13B's template renders a call turn as `text<tool_calls>[…]</tool_calls><|eos|>`, and its prompt
  // says a call goes with no other text: the block's close ends the turn (as vLLM's and Tencent's parsers read it).
  createDelimitedJsonToolCallParser({
    name: 'jamba',
    open: '<tool_calls>',
    closes: ['</tool_calls>'],
    endsTurn: true,
  }),
  createDelimitedJsonToolCallParser({
    name: 'command',
    open: '<|START_ACTION|>',
    closes: ['<|END_ACTION|>'],
  }),
  createDelimitedJsonToolCallParser({
    name: 'internlm',
    open: '<|action_start|>',
    closes: ['<|action_end|>'],
  }),
  createDelimitedJsonToolCallParser({
    name: 'apertus',
    open: '<|tools_prefix|>',
    closes: ['<|tools_suffix|>'],
  }),
  createDelimitedJsonToolCallParser({ name: 'phi4-mini', open: 'functools[', closes: [] }),
  // Fine-tunes on Glaive's function-calling data write `<functioncall> {"name": …, "arguments": '{…}'}`, the
  // arguments a single-quoted JSON string, then their end-of-text token (which servers strip).
  createDelimitedJsonToolCallParser({ name: 'glaive', open: '<functioncall>', closes: [] }),
  // Markup-free dialects last. Cline's and Roo Code's `<tool_name><param>…</param></tool_name>`: its markers are the
  // declared tools' names, which the stream filter adds per request (see `toolNameTagMarkers`).
  toolNameTagParser,
  reactToolCallParser,
  pythonicToolCallParser,
  jsonToolCallParser,
]);
// Every built-in parser reads a call's tool name as written (see `names-as-written.ts`; a test holds them to it).
for (const parser of defaultToolCallParsers) readsNamesAsWritten(parser);

/** Options for {@link ToolCallParserRegistry.register}. */
export interface RegisterToolCallParserOptions {
  /** Insert before the parser with this name (default: before the catch-all `json` parser). */
  readonly before?: string;
}

/** A user-extensible, ordered set of dialect parsers; pass it to `extractToolCallsFromText` as `parsers`. */
export interface ToolCallParserRegistry {
  /** Adds a parser (replacing one with the same name). */
  register(parser: ToolCallTextParser, options?: RegisterToolCallParserOptions): void;
  /** Removes the parser with this name; true when one was removed. */
  unregister(name: string): boolean;
  /** The parsers in priority order. */
  list(): readonly ToolCallTextParser[];
}

/** Creates a registry holding `parsers` (default: {@link defaultToolCallParsers}). */
export function createToolCallParserRegistry(
  parsers: readonly ToolCallTextParser[] = defaultToolCallParsers,
): ToolCallParserRegistry {
  let entries = [...parsers];
  return {
    register(parser, options = {}) {
      entries = entries.filter((entry) => entry.name !== parser.name);
      const anchor = entries.findIndex((entry) => entry.name === (options.before ?? 'json'));
      if (anchor < 0) entries.push(parser);
      else entries.splice(anchor, 0, parser);
    },
    unregister(name) {
      const before = entries.length;
      entries = entries.filter((entry) => entry.name !== name);
      return entries.length !== before;
    },
    list: () => [...entries],
  };
}

/**
 * The markup markers the given parsers declare (or those of a registry), once each by opening marker, in
 * priority order: what the stream filter hides and what the recovery gate fires on.
 */
export function toolCallMarkupMarkersOf(
  parsers: readonly ToolCallTextParser[] | ToolCallParserRegistry = defaultToolCallParsers,
): ToolCallMarkupMarker[] {
  const list = Array.isArray(parsers) ? parsers : (parsers as ToolCallParserRegistry).list();
  const byOpen = new Map<string, ToolCallMarkupMarker>();
  for (const parser of list) {
    for (const marker of parser.markers ?? []) {
      const key = marker.open.toLowerCase();
      const known = byOpen.get(key);
      if (!known) byOpen.set(key, marker);
      else if (marker.closes.some((close: string) => !known.closes.includes(close)))
        byOpen.set(key, { ...known, closes: [...new Set([...known.closes, ...marker.closes])] });
    }
  }
  return [...byOpen.values()];
}

/** The markers of {@link defaultToolCallParsers}. */
export const defaultToolCallMarkupMarkers: readonly ToolCallMarkupMarker[] = Object.freeze(
  toolCallMarkupMarkersOf(defaultToolCallParsers),
);
