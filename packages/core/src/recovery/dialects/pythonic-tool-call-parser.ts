import type { ToolDefinition } from '@toolbus/spec';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { onMarkdownExampleLine } from '../markdown-example-line.ts';
import { readPythonCall } from '../python-literal.ts';
import { recoveryWork } from '../recovery-work.ts';
import { sanitizeJsonValue } from '../sanitize-string.ts';
import type { TextScan } from '../text-scan.ts';
import {
  hasToolNamespacePrefix,
  readIdentifierEnd,
  skipWhitespace,
  stripFunctionsPrefix,
} from '../text-search.ts';
import { indexToolDefinitions } from '../tool-schema-index.ts';

const maximumCallLength = 1024 * 1024;

/**
 * Pythonic calls: `[get_weather(city='Oslo'), get_time(tz="CET")]` (Llama 3.2 / ToolACE, Llama 4 inside
 * `<|python_start|>`, LFM2 inside `<|tool_call_start|>`), Olmo 3's one-call-per-line inside `<function_calls>`,
 * Gemma 3's ```tool_code fences (also `print(get_weather(...))`), Llama 3.x built-in tools after
 * `<|python_tag|>` (`brave_search.call(query="...")`), and `functions.get_weather({...})` leaks from frontier
 * models.
 *
 * Literals are read by a small safe reader (never evaluated). To keep prose such as "I would call
 * get_weather(city='Oslo') now" from becoming a call, a call counts only when it stands alone: before it (on
 * its line) only `[`, `,`, `;`, `>` or nothing; after it only `]`, `,`, `;`, `<`, a backtick or the end of
 * the line. A `functions.` or `default_api.` prefix (Gemini's and Gemma's
 * `print(default_api.get_weather(...))`) counts anywhere. A call on a line of an indented code block after
 * prose or of a block quote is an example, not a call (see `onMarkdownExampleLine`). Parsing work is bounded by a budget proportional to
 * the text length.
 */
export const pythonicToolCallParser: ToolCallTextParser = {
  name: 'pythonic',
  markers: [
    { open: '<|python_start|>', closes: ['<|python_end|>'] },
    { open: '<|tool_call_start|>', closes: ['<|tool_call_end|>'] },
  ],
  detect: (text) => text.includes('('),
  parse(text: string, toolDefs: readonly ToolDefinition[], scan?: TextScan): LocatedToolCall[] {
    const tools = scan ? scan.tools(toolDefs) : indexToolDefinitions(toolDefs);
    if (scan && !namesAnyCall(text, scan, toolDefs)) return [];
    const calls: LocatedToolCall[] = [];
    let budget = 4 * text.length + maximumCallLength;
    let position = 0;
    while (position < text.length && budget > 0) {
      const parenthesis = text.indexOf('(', position);
      if (parenthesis < 0) break;
      position = parenthesis + 1;
      const nameStart = findIdentifierStart(text, parenthesis);
      // No name before the parenthesis (prose, most `(` of hostile text): only a tool named "" could match.
      if (nameStart === parenthesis && !tools.has('')) continue;
      const rawName = text.slice(nameStart, parenthesis);
      const prefixed = hasToolNamespacePrefix(rawName);
      const tool = tools.get(builtInName(stripFunctionsPrefix(rawName)));
      if (!tool || readIdentifierEnd(text, nameStart) !== parenthesis) continue;
      // Gemma writes `print(get_weather(...))` in its tool_code fences: the print wrapper is part of the call.
      const printStart = printWrapperStart(text, nameStart);
      const start = printStart ?? nameStart;
      if (!prefixed && !standsAloneBefore(text, start)) continue;
      // An indented code block after prose or a block quote shows an example (the filter shows it as written).
      if (onMarkdownExampleLine(text, start, scan)) continue;
      const windowEnd = Math.min(text.length, nameStart + Math.min(maximumCallLength, budget));
      const call = readPythonCall(text.slice(0, windowEnd), nameStart);
      budget -= call ? call.end - nameStart : windowEnd - nameStart;
      recoveryWork.characters += call ? call.end - nameStart : 1;
      if (!call) continue;
      let end = call.end;
      if (printStart !== undefined) {
        const close = skipWhitespace(text, end);
        if (text[close] !== ')') continue;
        end = close + 1;
      }
      if (!prefixed && !standsAloneAfter(text, end)) continue;
      calls.push({
        name: tool.name,
        arguments: sanitizeJsonValue(call.arguments) as Record<string, unknown>,
        start,
        end,
      });
      position = end;
    }
    return widenToLists(text, calls);
  },
};

// Llama 3.x built-in tools are written `brave_search.call(query="...")` after `<|python_tag|>`.
/**
 * Whether a declared tool's name stands right before `(` or `.call(` somewhere (true when there are too many
 * tools to look): every call's name does, so text without one holds no call and its parentheses are not read.
 */
function namesAnyCall(text: string, scan: TextScan, toolDefs: readonly ToolDefinition[]): boolean {
  const positions = scan.toolNamePositions(toolDefs);
  if (positions === undefined) return true;
  const names = [...scan.tools(toolDefs).keys()];
  for (const at of positions) {
    for (const name of names) {
      const after = at + name.length;
      const next = text.charCodeAt(after);
      if (next !== 0x28 && next !== 0x2e) continue;
      if (!text.startsWith(name, at)) continue;
      if (next === 0x28 || text.startsWith('.call(', after)) return true;
    }
  }
  return false;
}

function builtInName(name: string): string {
  return name.endsWith('.call') ? name.slice(0, -'.call'.length) : name;
}

function printWrapperStart(text: string, nameStart: number): number | undefined {
  let index = nameStart - 1;
  while (index >= 0 && (text[index] === ' ' || text[index] === '\t')) index--;
  if (text[index] !== '(' || !text.endsWith('print', index)) return undefined;
  const start = index - 'print'.length;
  return start === 0 || !/[\w.]/.test(text[start - 1]!) ? start : undefined;
}

/**
 * Calls written as one list, `[a(...), b(...)]`, take the brackets and commas into their ranges (the first call
 * the `[`, each call the comma after it, the last the `]`), so cutting the calls out leaves no `[, ]` behind.
 */
function widenToLists(text: string, calls: LocatedToolCall[]): LocatedToolCall[] {
  let index = 0;
  while (index < calls.length) {
    const open = listOpenBefore(text, calls[index]!.start);
    if (open < 0) {
      index++;
      continue;
    }
    let last = index;
    while (last + 1 < calls.length && text.slice(calls[last]!.end, calls[last + 1]!.start).trim() === ',')
      last++;
    const close = listCloseAfter(text, calls[last]!.end);
    if (close >= 0) {
      calls[index] = { ...calls[index]!, start: open };
      // Each call's range runs up to the next one, so the commas between them go too.
      for (let member = index; member < last; member++)
        calls[member] = { ...calls[member]!, end: calls[member + 1]!.start };
      calls[last] = { ...calls[last]!, end: close + 1 };
    }
    index = last + 1;
  }
  return calls;
}

// Calls no parser could read (`bad(x=b'z')`, a broken quote) beside readable ones in a list on one line: vLLM's
// pythonic parser drops them and keeps their siblings, and so does recovery; their text goes with the list.
// One `.*` each (it may span several siblings): no nested repetition for hostile text to backtrack through.
const unreadableBefore = /^\s*[A-Za-z_][\w.]*\(.*\)\s*,\s*$/;
const unreadableAfter = /^\s*,\s*[A-Za-z_][\w.]*\(.*\)\s*$/;

// How far from a readable call its unreadable siblings are looked for: a few calls' worth, so that a long line of
// calls after commas costs a bounded read per call.
const siblingReach = 512;

// Where the list holding a call starting at `start` opens (its `[`, unreadable siblings between), or -1.
function listOpenBefore(text: string, start: number): number {
  const before = skipBackWhitespace(text, start - 1);
  if (text[before] === '[') return before;
  if (text[before] !== ',') return -1;
  let open = before - 1;
  const limit = Math.max(0, before - siblingReach);
  while (open >= limit && text[open] !== '[' && text[open] !== '\n') open--;
  return text[open] === '[' && unreadableBefore.test(text.slice(open + 1, start)) ? open : -1;
}

// Where the list holding a call ending at `end` closes (its `]`, unreadable siblings between), or -1.
function listCloseAfter(text: string, end: number): number {
  const after = skipWhitespace(text, end);
  if (text[after] === ']') return after;
  if (text[after] !== ',') return -1;
  const limit = Math.min(text.length, after + siblingReach);
  let close = -1;
  for (let at = after; at < limit && text[at] !== '\n'; at++) if (text[at] === ']') close = at;
  return close > after && unreadableAfter.test(text.slice(end, close)) ? close : -1;
}

function skipBackWhitespace(text: string, from: number): number {
  let index = from;
  while (index >= 0 && /\s/.test(text[index]!)) index--;
  return index;
}

function findIdentifierStart(text: string, end: number): number {
  let index = end;
  while (index > 0 && end - index < 256 && isNameCode(text.charCodeAt(index - 1))) index--;
  return index;
}

// `[\w.]`: ASCII letters, digits, `_` and `.`.
function isNameCode(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x5f ||
    code === 0x2e
  );
}

function standsAloneBefore(text: string, start: number): boolean {
  let index = start - 1;
  while (index >= 0 && (text[index] === ' ' || text[index] === '\t')) index--;
  if (index < 0) return true;
  const character = text[index]!;
  return (
    character === '\n' || character === '[' || character === ',' || character === ';' || character === '>'
  );
}

function standsAloneAfter(text: string, end: number): boolean {
  let index = end;
  while (index < text.length && (text[index] === ' ' || text[index] === '\t' || text[index] === '\r'))
    index++;
  if (index >= text.length) return true;
  const character = text[index]!;
  return '\n],;<`'.includes(character);
}
