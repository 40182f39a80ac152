import type { ToolDefinition } from '@toolbus/spec';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { matchJsonToolCalls } from '../match-json-tool-calls.ts';
import { parseToolArguments } from '../parse-tool-arguments.ts';
import { sanitizeString } from '../sanitize-string.ts';
import { scanJsonValues } from '../scan-json-values.ts';
import { createTextScan, type TextScan } from '../text-scan.ts';
import {
  functionsPrefix,
  isWhitespaceCode,
  readIdentifierEnd,
  skipWhitespace,
  stripFunctionsPrefix,
} from '../text-search.ts';
import type { ToolSchemaIndex, ToolSchemaInfo } from '../tool-schema-index.ts';

const actionMarker = 'Action:';
const inputMarker = 'Action Input:';
// Command R / R+ write their calls as a JSON list in a fence after `Action:`.
const fencedActionMarker = 'Action: ```';

/**
 * ReAct text (LangChain classic agents): `Action: get_weather` then `Action Input: {"city": "Oslo"}`. A
 * non-JSON input line is accepted for a tool with exactly one parameter (it becomes that parameter's value).
 * The range covers both lines. Command R / R+'s `Action: ```json` fence holding a list of
 * `{"tool_name", "parameters"}` calls is read here too.
 */
export const reactToolCallParser: ToolCallTextParser = {
  name: 'react',
  needles: [actionMarker, inputMarker, fencedActionMarker],
  // The markers (words, found by searches of their own) are looked for only when a tool's name follows one.
  detect: (text) => text.includes(':'),
  parse(text: string, toolDefs: readonly ToolDefinition[], scan = createTextScan(text)): LocatedToolCall[] {
    if (!mayNameActionTool(text, scan, toolDefs) && !scan.has(fencedActionMarker)) return [];
    const tools = scan.tools(toolDefs);
    const actionSearch = scan.search(actionMarker, true);
    const calls: LocatedToolCall[] = [];
    // A call found where the rest of the text is claimed by higher-priority dialects would be dropped.
    const claimedFrom = scan.recovered.claimedFrom(text.length);
    let position = 0;
    while (position < text.length) {
      const hit = actionSearch.next(position);
      if (hit < 0 || hit >= claimedFrom) break;
      // Text a higher-priority dialect recovered is passed over unread: a call there would be dropped.
      const free = scan.recovered.endOfRangeAt(hit);
      if (free > hit) {
        position = free;
        continue;
      }
      position = hit + actionMarker.length;
      const fenced = fencedActionCalls(text, tools, hit, position);
      if (fenced) {
        calls.push(...fenced.calls);
        position = fenced.end;
        continue;
      }
      let nameStart = skipWhitespace(text, position);
      if (text[nameStart] === '`') nameStart++;
      const nameEnd = readIdentifierEnd(text, nameStart);
      const tool = tools.get(stripFunctionsPrefix(text.slice(nameStart, nameEnd)));
      if (!tool) continue;
      const inputAt = skipWhitespace(text, nameEnd + (text[nameEnd] === '`' ? 1 : 0));
      if (!text.startsWith(inputMarker, inputAt)) continue;
      const valueStart = inputAt + inputMarker.length;
      const json = scanJsonValues(text, { from: valueStart, anchored: true })[0];
      if (json) {
        calls.push({ name: tool.name, arguments: parseToolArguments(json.value), start: hit, end: json.end });
        position = json.end;
        continue;
      }
      const lineEnd = text.indexOf('\n', valueStart);
      const end = lineEnd < 0 ? text.length : lineEnd;
      const single = singleParameter(tool);
      if (single === undefined || end - valueStart > 65_536) continue;
      const value = text
        .slice(valueStart, end)
        .trim()
        .replace(/^"(.*)"$/s, '$1');
      calls.push({ name: tool.name, arguments: { [single]: sanitizeString(value) }, start: hit, end });
      position = end;
    }
    return calls;
  },
};

/**
 * Whether a declared tool's name stands after `Action:` (whitespace and a backtick between allowed, as the parse
 * reads it) before the text higher-priority dialects claimed; true when there are too many tools to look.
 */
function mayNameActionTool(text: string, scan: TextScan, toolDefs: readonly ToolDefinition[]): boolean {
  const names = scan.toolNamePositions(toolDefs);
  if (names === undefined) return true;
  const limit = scan.recovered.claimedFrom(text.length);
  for (let index = 0; index < names.length && names[index]! < limit; index++) {
    let before = names[index]! - 1;
    // `functions.get_weather` reads as `get_weather`.
    if (text.startsWith(functionsPrefix, before + 1 - functionsPrefix.length))
      before -= functionsPrefix.length;
    if (text.charCodeAt(before) === 0x60) before--;
    while (before >= 0 && isWhitespaceCode(text.charCodeAt(before))) before--;
    if (text.charCodeAt(before) === 0x3a && text.startsWith(actionMarker, before + 1 - actionMarker.length))
      return true;
  }
  return false;
}

/**
 * Command R / R+'s `Action: ```json [{"tool_name": …, "parameters": {…}}] ```` at `hit`: the calls of the list,
 * each ranging from `Action:` to the closing fence; undefined when no fenced JSON follows.
 */
function fencedActionCalls(
  text: string,
  tools: ToolSchemaIndex,
  hit: number,
  from: number,
): { calls: LocatedToolCall[]; end: number } | undefined {
  const fence = skipWhitespace(text, from);
  if (!text.startsWith('```', fence)) return undefined;
  // The fence's language tag is short: the line end is looked for within it, not through the rest of the text.
  const tagLength = text.slice(fence, fence + 17).indexOf('\n');
  if (tagLength < 0) return undefined;
  const lineEnd = fence + tagLength;
  const json = scanJsonValues(text, { from: lineEnd + 1, anchored: true })[0];
  if (!json) return undefined;
  const closing = skipWhitespace(text, json.end);
  const end = text.startsWith('```', closing) ? closing + 3 : json.end;
  const calls = matchJsonToolCalls(json.value, { tools, allowBareArguments: false }).map((call) => ({
    ...call,
    start: hit,
    end,
  }));
  return calls.length > 0 ? { calls, end } : undefined;
}

function singleParameter(tool: ToolSchemaInfo): string | undefined {
  if (tool.properties.size === 1) return tool.properties.keys().next().value;
  return tool.required.length === 1 ? tool.required[0] : undefined;
}
