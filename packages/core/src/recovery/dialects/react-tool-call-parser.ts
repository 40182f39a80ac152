import type { ToolDefinition } from '@toolbus/spec';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
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
import type { ToolSchemaInfo } from '../tool-schema-index.ts';

const actionMarker = 'Action:';
const inputMarker = 'Action Input:';

/**
 * ReAct text (LangChain classic agents): `Action: get_weather` then `Action Input: {"city": "Oslo"}`. A
 * non-JSON input line is accepted for a tool with exactly one parameter (it becomes that parameter's value).
 * The range covers both lines.
 */
export const reactToolCallParser: ToolCallTextParser = {
  name: 'react',
  needles: [actionMarker, inputMarker],
  // The markers (words, found by searches of their own) are looked for only when a tool's name follows one.
  detect: (text) => text.includes(':'),
  parse(text: string, toolDefs: readonly ToolDefinition[], scan = createTextScan(text)): LocatedToolCall[] {
    if (!mayNameActionTool(text, scan, toolDefs)) return [];
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

function singleParameter(tool: ToolSchemaInfo): string | undefined {
  if (tool.properties.size === 1) return tool.properties.keys().next().value;
  return tool.required.length === 1 ? tool.required[0] : undefined;
}
