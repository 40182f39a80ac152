import { createDelimitedJsonToolCallParser } from './dialects/delimited-json-tool-call-parser.ts';
import type { ToolCallTextParser } from './extracted-tool-call.ts';
import { defaultToolCallParsers } from './tool-call-parser-registry.ts';

/** How a template writes a call's arguments. */
export type TemplateArgumentFormat =
  | 'json'
  | 'xml-parameters'
  | 'xml-invoke'
  | 'key-value-tags'
  | 'pythonic'
  | 'gemma'
  | 'unknown';

/** What a model's own chat template says about how it writes calls and reasoning. */
export interface TemplateDialect {
  /** The registered dialect parsers whose markers the template writes, most specific first: tried first. */
  readonly dialects: readonly string[];
  /** Parsers for call markers no registered dialect knows (a JSON body between the template's own tags). */
  readonly parsers: readonly ToolCallTextParser[];
  /** The call markers found in the template (openers). */
  readonly callMarkers: readonly string[];
  readonly argumentFormat: TemplateArgumentFormat;
  /** The reasoning markers the template writes (`<think>`, `<seed:think>`, Gemma 4's channel). */
  readonly reasoningMarkers: readonly { readonly open: string; readonly close: string }[];
  /** Where the template puts a tool's result (`<tool_response>`, `<｜tool▁output▁begin｜>`): never the model's. */
  readonly toolResultMarkers: readonly string[];
}

// Dialects a template's text says nothing about: the catch-all JSON scan, the thinking tags, and `<tools>` (the
// tag most templates list the tools in, which Qwen 2.5 only sometimes writes around a call).
const ignoredDialects = new Set(['json', 'thinking', 'qwen-tools']);

// The JSON a template writes for a call, after its opening marker: `{"name": "` (also with escaped quotes).
const jsonCallOpener = /\{\s*\\*["']name\\*["']\s*:/;
// A tag or special token: `<tool_call>`, `<TOOLCALL>`, `<|tool_call|>`, `[TOOL_CALLS]`, `<｜tool▁calls▁begin｜>`.
const markerToken = /<[|｜]?[A-Za-z_][\w:.▁-]{1,40}[|｜]?>|\[[A-Z][A-Z_]{2,30}\]/g;

const reasoningPairs: ReadonlyArray<readonly [string, string]> = [
  ['<think>', '</think>'],
  ['<seed:think>', '</seed:think>'],
  ['<|channel>', '<channel|>'],
  ['<|channel|>analysis<|message|>', '<|end|>'],
];
// Result markers: a tag or token whose name says response, output, result or observation.
const resultMarker =
  /<[|｜]?(?:tool[_▁]?)?(?:response|responses|output|outputs|result|results|observation)(?:[_▁]begin)?[|｜]?>|\[TOOL_RESULTS\]|<\|start_header_id\|>ipython/gi;

/**
 * Reads how a model writes calls from its chat template (Jinja from `tokenizer_config.json`, llama.cpp's
 * `/props`, or an Ollama Go template from `/api/show`): the markers of registered dialects that the template
 * writes, the argument format, its reasoning markers and where it puts tool results. A JSON call written between
 * tags no registered dialect knows (`'<my_call>{"name": "' + name + …'}</my_call>'`) gets a parser of its own,
 * so a new family is read from its template alone. Undefined when the template writes no call markup it can
 * recognise (then recovery keeps its usual behaviour).
 */
export function dialectFromChatTemplate(
  template: string,
  parsers: readonly ToolCallTextParser[] = defaultToolCallParsers,
): TemplateDialect | undefined {
  if (typeof template !== 'string' || template.length === 0) return undefined;
  const text = unescapeLiterals(template);
  const dialects: string[] = [];
  const callMarkers: string[] = [];
  const argumentFormat = argumentFormatOf(text);
  for (const parser of parsers) {
    if (ignoredDialects.has(parser.name)) continue;
    // GLM's `<tool_call>name<arg_key>` shares Hermes's opening tag: only its argument tags tell it apart.
    if (parser.name === 'named-tool-call-tag' && argumentFormat !== 'key-value-tags') continue;
    for (const marker of parser.markers ?? []) {
      if (marker.reasoning === true || marker.token === true) continue;
      if (!text.includes(marker.open)) continue;
      if (!dialects.includes(parser.name)) dialects.push(parser.name);
      if (!callMarkers.includes(marker.open)) callMarkers.push(marker.open);
    }
  }
  // Markup-free dialects show in their shape: Gemma's `call:`, LFM2's pythonic list.
  for (const [format, name] of [
    ['gemma', 'gemma'],
    ['pythonic', 'pythonic'],
  ] as const) {
    if (argumentFormat === format && !dialects.includes(name)) dialects.push(name);
  }
  const extra: ToolCallTextParser[] = [];
  const jsonMarker = jsonCallMarker(text);
  if (jsonMarker && !callMarkers.includes(jsonMarker.open)) {
    callMarkers.push(jsonMarker.open);
    const name = `template:${jsonMarker.open}`;
    extra.push(createDelimitedJsonToolCallParser({ name, open: jsonMarker.open, closes: jsonMarker.closes }));
    dialects.unshift(name);
  }
  if (dialects.length === 0) return undefined;
  return {
    dialects,
    parsers: extra,
    callMarkers,
    argumentFormat,
    reasoningMarkers: reasoningPairs
      .filter(([open, close]) => text.includes(open) && text.includes(close))
      .map(([open, close]) => ({ open, close })),
    toolResultMarkers: [...new Set(text.match(resultMarker) ?? [])],
  };
}

function argumentFormatOf(text: string): TemplateArgumentFormat {
  if (text.includes('<arg_key>')) return 'key-value-tags';
  if (text.includes('<parameter=')) return 'xml-parameters';
  if (text.includes('<invoke name=')) return 'xml-invoke';
  if (/['"]<\|tool_call>call:|call:['"]?\s*\+/.test(text)) return 'gemma';
  // A call written `name(key=value, …)`: the name, `(`, and `=` between argument names and values.
  if (/\+\s*["']\(["']/.test(text) && /\+\s*["']=["']/.test(text)) return 'pythonic';
  // JSON after the name: `{"name": "…"`, arguments through `tojson`, Ollama's `.Function.Arguments`, or
  // DeepSeek's name `<｜tool▁sep｜>` then the arguments string.
  if (jsonCallOpener.test(text) || /arguments['"\]]*\s*\|\s*tojson|\.Function\.Arguments|tool▁sep/.test(text))
    return 'json';
  return 'unknown';
}

/**
 * The marker a template writes right before a JSON call (`<tool_call>\n{"name": "`, `<TOOLCALL>[{"name": "`),
 * with its closing tag when the template writes one.
 */
function jsonCallMarker(text: string): { open: string; closes: string[] } | undefined {
  for (let at = text.search(jsonCallOpener); at >= 0; ) {
    const before = text.slice(Math.max(0, at - 120), at);
    const tokens = [...before.matchAll(markerToken)].map((match) => match[0]);
    const open = tokens.at(-1);
    if (open && !open.startsWith('</')) {
      const close = open.startsWith('<') && !open.startsWith('<|') ? `</${open.slice(1)}` : undefined;
      return { open, closes: close && text.includes(close) ? [close] : [] };
    }
    const next = text.slice(at + 1).search(jsonCallOpener);
    at = next < 0 ? -1 : at + 1 + next;
  }
  return undefined;
}

// Template string literals write `\n` and `\"`: read them as the text they produce.
function unescapeLiterals(template: string): string {
  return template.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\'/g, "'");
}
