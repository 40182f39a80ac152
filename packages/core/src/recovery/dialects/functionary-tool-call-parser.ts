import type { ToolDefinition } from '@toolbus/spec';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { parseToolArguments } from '../parse-tool-arguments.ts';
import { scanJsonValues } from '../scan-json-values.ts';
import { createTextScan } from '../text-scan.ts';
import { readIdentifierEnd } from '../text-search.ts';

const marker = '>>>';

/**
 * Functionary v3.2: `>>>get_weather` newline `{"city": "Oslo"}`. Each message starts with `>>>` and its
 * recipient; `>>>all` newline introduces text for the user, so that header is a stand-alone marker (hidden,
 * its text shown).
 */
export const functionaryToolCallParser: ToolCallTextParser = {
  name: 'functionary',
  markers: [{ open: '>>>all\n', closes: [], token: true }],
  needles: [marker],
  // `>>>` is searched for (a pass of its own) only when a tool's name follows it.
  detect: (text) => text.includes('>'),
  parse(text: string, toolDefs: readonly ToolDefinition[], scan = createTextScan(text)): LocatedToolCall[] {
    if (!scan.mayNameToolAfter(toolDefs, marker)) return [];
    const tools = scan.tools(toolDefs);
    const search = scan.search(marker);
    const calls: LocatedToolCall[] = [];
    let position = 0;
    while (position < text.length) {
      const hit = search.next(position);
      if (hit < 0) break;
      position = hit + marker.length;
      const nameEnd = readIdentifierEnd(text, position);
      const tool = tools.get(text.slice(position, nameEnd));
      if (!tool) continue;
      const json = scanJsonValues(text, { from: nameEnd, anchored: true })[0];
      if (!json) continue;
      calls.push({ name: tool.name, arguments: parseToolArguments(json.value), start: hit, end: json.end });
      position = json.end;
    }
    return calls;
  },
};
