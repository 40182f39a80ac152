import type { ToolDefinition } from '@toolbus/spec';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { parseToolArguments } from '../parse-tool-arguments.ts';
import { scanJsonValues } from '../scan-json-values.ts';
import { createTextScan } from '../text-scan.ts';
import { isWhitespaceCode, readIdentifierEnd, skipWhitespace, stripFunctionsPrefix } from '../text-search.ts';

const marker = '[TOOL_CALLS]';
const argumentsMarker = '[ARGS]';
const callIdMarker = '[CALL_ID]';

/**
 * Newer Mistral models (Small 3.2, Devstral, Magistral, Ministral 3): `[TOOL_CALLS]name[ARGS]{json}`, possibly
 * with `[CALL_ID]id` before `[ARGS]`, the v11+ template's `[TOOL_CALLS]name{json}` without `[ARGS]`, and several
 * calls either each after their own `[TOOL_CALLS]` or one after another. (The older `[TOOL_CALLS][{...}]` JSON form is the `mistral` delimited parser.)
 */
export const mistralArgumentsToolCallParser: ToolCallTextParser = {
  name: 'mistral-args',
  markers: [{ open: marker, closes: [] }],
  // The marker's case is checked where a name follows it (the parse reads nothing after other markers).
  detect: (text, scan = createTextScan(text)) => scan.has(marker),
  parse(text: string, toolDefs: readonly ToolDefinition[], scan = createTextScan(text)): LocatedToolCall[] {
    const tools = scan.tools(toolDefs);
    const hits = scan.positions(marker);
    let hitIndex = 0;
    const calls: LocatedToolCall[] = [];
    // A call found where the rest of the text is claimed by higher-priority dialects would be dropped.
    const claimedFrom = scan.recovered.claimedFrom(text.length);
    let position = 0;
    while (position < text.length) {
      while (hitIndex < hits.length && hits[hitIndex]! < position) hitIndex++;
      if (hitIndex === hits.length) break;
      const hit = hits[hitIndex++]!;
      if (hit >= claimedFrom) break;
      const afterMarker = hit + marker.length;
      const follower = text.charCodeAt(afterMarker);
      // Neither whitespace nor a name after the marker: no call starts here (most markers of hostile text).
      if (!isWhitespaceCode(follower) && readIdentifierEnd(text, afterMarker) === afterMarker) continue;
      if (!text.startsWith(marker, hit)) continue;
      let start = hit;
      let cursor = hit + marker.length;
      position = cursor;
      while (cursor < text.length) {
        const nameStart = skipWhitespace(text, cursor);
        const nameEnd = readIdentifierEnd(text, nameStart);
        if (nameEnd === nameStart) break;
        let afterName = nameEnd;
        if (text.startsWith(callIdMarker, afterName)) {
          afterName = readIdentifierEnd(text, afterName + callIdMarker.length);
        }
        const hasArgumentsMarker = text.startsWith(argumentsMarker, afterName);
        if (!hasArgumentsMarker && text[afterName] !== '{') break;
        const argumentsFrom = afterName + (hasArgumentsMarker ? argumentsMarker.length : 0);
        const json = scanJsonValues(text, { from: argumentsFrom, anchored: true })[0];
        if (!json) break;
        const tool = tools.get(stripFunctionsPrefix(text.slice(nameStart, nameEnd)));
        if (tool)
          calls.push({ name: tool.name, arguments: parseToolArguments(json.value), start, end: json.end });
        cursor = json.end;
        position = cursor;
        const next = skipWhitespace(text, cursor);
        if (text.startsWith(marker, next)) cursor = next + marker.length;
        start = next;
      }
    }
    return calls;
  },
};
