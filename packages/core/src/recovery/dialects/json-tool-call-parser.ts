import type { ToolDefinition } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { onMarkdownExampleLine } from '../markdown-example-line.ts';
import { matchJsonToolCalls } from '../match-json-tool-calls.ts';
import { isPlainObject } from '../parse-tool-arguments.ts';
import { recoveryWork } from '../recovery-work.ts';
import { forEachJsonValue } from '../scan-json-values.ts';
import type { TextScan } from '../text-scan.ts';
import { indexToolDefinitions } from '../tool-schema-index.ts';

/**
 * JSON written anywhere in the text: bare, in code fences, after `<|python_tag|>`, in `<tool_call>`, in
 * `[TOOL_CALLS]`, in most vendor tags (their JSON body is found by the scan). Each outermost JSON value is
 * matched once (see `matchJsonToolCalls`); only these outermost values may be bare arguments, and only when
 * they stand on lines of their own (see {@link standsOnOwnLines}). A value on a line Markdown shows as a quotation
 * is an example (see `onMarkdownExampleLine`).
 */
export const jsonToolCallParser: ToolCallTextParser = {
  name: 'json',
  detect: (text) => text.includes('{'),
  parse(text: string, toolDefs: readonly ToolDefinition[], scan?: TextScan): LocatedToolCall[] {
    const tools = scan ? scan.tools(toolDefs) : indexToolDefinitions(toolDefs);
    const calls: LocatedToolCall[] = [];
    // Where the rest of the text is claimed by higher-priority dialects, no value there could be kept.
    const stopAt = scan ? scan.recovered.claimedFrom(text.length) : text.length;
    // Text claimed by higher-priority dialects is passed over unread: no value starting there could be kept.
    const resumeAt = scan ? (start: number) => scan.recovered.endOfRangeAt(start) : undefined;
    forEachJsonValue(text, { objectsOnly: true, stopAt, ...omitUndefined({ resumeAt }) }, (scanned) => {
      // Text a higher-priority dialect recovered (the JSON body of its markup): a call here would be dropped.
      if (scan?.recovered.overlaps(scanned.start, scanned.end)) return;
      const named = namedLineBefore(text, scanned.start, tools);
      if (named && isPlainObject(scanned.value) && !('name' in scanned.value)) {
        calls.push({ name: named.name, arguments: scanned.value, start: named.start, end: scanned.end });
        return;
      }
      const matched = matchJsonToolCalls(scanned.value, {
        tools,
        allowBareArguments: standsOnOwnLines(text, scanned.start, scanned.end),
      });
      // A value on a line of an indented code block after prose or of a block quote is an example, as a named
      // call there is, also within the line (the answer filter shows such a line as written, and holds a call
      // within a line of prose only). Asked only of values that match a call, whose line starts nearby: values
      // deep in one long line cost no walk back to its start.
      if (matched.length === 0) return;
      if (lineStartsNear(text, scanned.start) && onMarkdownExampleLine(text, scanned.start, scan)) return;
      for (const call of matched) calls.push({ ...call, start: scanned.start, end: scanned.end });
    });
    return calls;
  },
};

/**
 * The declared tool named alone on the line right before the object at `start` (GLM-4-0414 writes
 * `get_weather\n{"location": "Paris"}`: its template defines no call markers, mlx-swift-lm #491 / #623), with
 * where that line starts; undefined otherwise. The object must open its own line.
 */
function namedLineBefore(
  text: string,
  start: number,
  tools: ReadonlyMap<string, { readonly name: string }>,
): { name: string; start: number } | undefined {
  let at = start - 1;
  while (at >= 0 && isLineBlank(text.charCodeAt(at))) at--;
  if (at < 0 || text.charCodeAt(at) !== 0x0a) return undefined;
  const lineEnd = at;
  const lineStart = text.lastIndexOf('\n', lineEnd - 1) + 1;
  if (lineEnd - lineStart > 128) return undefined;
  const tool = tools.get(text.slice(lineStart, lineEnd).trim());
  return tool ? { name: tool.name, start: lineStart } : undefined;
}

/**
 * Whether the JSON value at `start`..`end` stands on lines of its own: nothing but whitespace before it on its
 * first line (or a tag or special token that ends there, `</think>`, `<|python_tag|>`) and nothing but
 * whitespace after it on its last line (or the start of a tag, a token or a closing fence). A weak model that
 * answers with bare arguments writes them so; an object inside a sentence ("the body is {"city": "Oslo"} and it
 * works") is data the answer talks about, and running a tool on it would be a false positive.
 */
function standsOnOwnLines(text: string, start: number, end: number): boolean {
  // Only the blanks next to the value are read, so a line of many values costs linear time.
  let before = start - 1;
  while (before >= 0 && isLineBlank(text.charCodeAt(before))) before--;
  const opening = before < 0 ? 0x0a : text.charCodeAt(before);
  if (opening !== 0x0a && opening !== 0x3e && opening !== 0x60) return false; // newline, `>`, a fence's backtick
  let after = end;
  while (after < text.length && isLineBlank(text.charCodeAt(after))) after++;
  if (after >= text.length) return true;
  const closing = text.charCodeAt(after);
  return closing === 0x0a || closing === 0x0d || closing === 0x3c || closing === 0x60 || closing === 0x5b;
}

// How far back from a value its line's start is looked for.
const lineStartReach = 256;

/** Whether the line `start` is on starts at most {@link lineStartReach} characters before it. */
function lineStartsNear(text: string, start: number): boolean {
  const stop = Math.max(0, start - lineStartReach);
  let at = start - 1;
  while (at >= stop && text.charCodeAt(at) !== 0x0a) at--;
  recoveryWork.characters += start - at;
  return at >= stop || stop === 0;
}

/** A space, a tab or another blank that does not end a line. */
function isLineBlank(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0x0b || code === 0x0c || code === 0xa0;
}
