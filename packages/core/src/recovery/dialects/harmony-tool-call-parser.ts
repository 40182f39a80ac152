import type { ToolDefinition } from '@toolbus/spec';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { parseToolArguments } from '../parse-tool-arguments.ts';
import { scanJsonValues } from '../scan-json-values.ts';
import { createTextScan } from '../text-scan.ts';
import { readIdentifierEnd } from '../text-search.ts';

const recipient = 'to=functions.';
const messageMarker = '<|message|>';
const endMarkers = ['<|call|>', '<|end|>', '<|return|>'];
const headerStarts = ['<|start|>', '<|channel|>'];

/**
 * OpenAI Harmony (gpt-oss): `<|start|>assistant<|channel|>commentary to=functions.get_weather
 * <|constrain|>json<|message|>{json}<|call|>`. The recipient may also sit before `<|channel|>`. The range
 * starts at the header's `<|start|>` (or `<|channel|>`) and ends after `<|call|>`.
 */
export const harmonyToolCallParser: ToolCallTextParser = {
  name: 'harmony',
  markers: [
    { open: '<|start|>assistant<|channel|>commentary to=', closes: ['<|call|>'] },
    { open: '<|channel|>commentary to=', closes: ['<|call|>'] },
    { open: '<|start|>assistant to=', closes: ['<|call|>'] },
  ],
  needles: [recipient, messageMarker, ...endMarkers],
  // The recipient (words, found by a search of its own) is looked for only when a tool's name follows it.
  detect: (text, scan = createTextScan(text)) => scan.positions(messageMarker, true).length > 0,
  parse(text: string, toolDefs: readonly ToolDefinition[], scan = createTextScan(text)): LocatedToolCall[] {
    if (!scan.mayNameToolAfter(toolDefs, recipient)) return [];
    const tools = scan.tools(toolDefs);
    const recipientSearch = scan.search(recipient, true);
    const messageSearch = scan.search(messageMarker, true);
    const endSearches = endMarkers.map((marker) => ({ search: scan.search(marker, true), marker }));
    const calls: LocatedToolCall[] = [];
    // A call found where the rest of the text is claimed by higher-priority dialects would be dropped.
    const claimedFrom = scan.recovered.claimedFrom(text.length);
    let position = 0;
    while (position < text.length) {
      const hit = recipientSearch.next(position);
      if (hit < 0 || hit >= claimedFrom) break;
      position = hit + recipient.length;
      const nameEnd = readIdentifierEnd(text, position);
      const tool = tools.get(text.slice(position, nameEnd));
      const message = messageSearch.next(nameEnd);
      if (!tool || message < 0 || message - nameEnd > 512) continue;
      const json = scanJsonValues(text, { from: message + messageMarker.length, anchored: true })[0];
      let end = json ? json.end : message + messageMarker.length;
      for (const { search, marker } of endSearches) {
        const endHit = search.next(end);
        if (endHit >= 0 && endHit - end <= 16 && text.slice(end, endHit).trim() === '') {
          end = endHit + marker.length;
          break;
        }
      }
      calls.push({
        name: tool.name,
        arguments: json ? parseToolArguments(json.value) : {},
        start: headerStart(text, hit),
        end,
      });
      position = end;
    }
    return calls;
  },
};

function headerStart(text: string, recipientAt: number): number {
  const windowStart = Math.max(0, recipientAt - 64);
  const window = text.slice(windowStart, recipientAt);
  let start = recipientAt;
  for (const marker of headerStarts) {
    const found = window.lastIndexOf(marker);
    if (found >= 0 && windowStart + found < start) start = windowStart + found;
  }
  return start;
}
