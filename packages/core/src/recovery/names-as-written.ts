import type { ToolDefinition } from '@toolbus/spec';
import type { ToolCallTextParser } from './extracted-tool-call.ts';

/**
 * Parsers that read a call's tool name only as the text writes it: a slice of the text, at most with a namespace
 * prefix (`functions.`) or a `.call` suffix cut off, or a JSON or Python string or an XML attribute that may
 * spell it with escapes (`\u005f`, `&#95;`); the one call they read without a name is a JSON object of bare
 * arguments that fit one tool alone. For them, a text that writes no declared tool's name and holds no escape
 * and no `{` holds no call of a declared tool: recovery is skipped without reading the text. Every built-in
 * parser is one (`tool-call-parser-registry.ts` marks them); a parser a user adds is not known to be, so a
 * registry with one is read in full.
 */
const readingNamesAsWritten = new WeakSet<ToolCallTextParser>();

/** Marks `parser` as reading tool names only as written (see above); returns it. */
export function readsNamesAsWritten<T extends ToolCallTextParser>(parser: T): T {
  readingNamesAsWritten.add(parser);
  return parser;
}

// Up to this many tools, each name is looked for in the text (one native search each); past it, the text is read.
const maximumNames = 32;

/**
 * Whether `text` may hold a call of one of `toolDefs` as `parsers` read it: false only when every parser reads
 * names as written and the text holds no `{`, no escape (`\` or `&`) and no declared name. Never throws.
 */
export function mayCallDeclaredTool(
  text: string,
  toolDefs: readonly ToolDefinition[],
  parsers: readonly ToolCallTextParser[],
): boolean {
  if (toolDefs.length > maximumNames || text.includes('{') || text.includes('\\') || text.includes('&'))
    return true;
  for (const parser of parsers) if (!readingNamesAsWritten.has(parser)) return true;
  for (const definition of toolDefs) {
    const name: unknown = definition?.name;
    if (typeof name !== 'string') continue;
    // A name with whitespace or tag characters could be made by the extractor's normalising of `</tag >`.
    if (!plainName.test(name) || text.includes(name)) return true;
  }
  return false;
}

const plainName = /^[^\s<>/]+$/;
