import type { ToolDefinition } from '@toolbus/spec';
import { childElementArguments, isElementName } from '../child-element-arguments.ts';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { sanitizeJsonValue } from '../sanitize-string.ts';
import { createTextScan } from '../text-scan.ts';
import type { ToolCallMarkupMarker } from '../tool-call-markup-marker.ts';
import { indexToolDefinitions } from '../tool-schema-index.ts';

/**
 * A call written as an XML element named after the tool, its arguments as child elements: `<get_weather>` newline
 * `<city>Oslo</city>` newline `</get_weather>`. Cline's and Roo Code's system prompts teach models this form, and
 * models trained on their sessions write it even when the request declares native tools. Only a declared tool's
 * name opens a call, and only child elements named after its parameters (typed by its schema, see
 * `childElementArguments`) fill it: an element of any other name, or text outside the children, makes the block
 * prose. A tool without parameters is called by its empty element. The range covers the element.
 */
export const toolNameTagParser: ToolCallTextParser = {
  name: 'tool-tag',
  detect: (text) => text.includes('</'),
  parse(text: string, toolDefs: readonly ToolDefinition[], scan = createTextScan(text)): LocatedToolCall[] {
    // No declared tool named anywhere: no element of one either (one shared search for all names).
    if (scan.toolNamePositions(toolDefs)?.length === 0) return [];
    const tools = scan.tools(toolDefs);
    const calls: LocatedToolCall[] = [];
    for (const tool of tools.values()) {
      const open = `<${tool.name}>`;
      const close = `</${tool.name}>`;
      let from = 0;
      for (let start = text.indexOf(open, from); start >= 0; start = text.indexOf(open, from)) {
        const bodyStart = start + open.length;
        const bodyEnd = text.indexOf(close, bodyStart);
        // No close after this open: none after a later one either (each search runs forward from the last).
        if (bodyEnd < 0) break;
        from = bodyEnd + close.length;
        const body = text.slice(bodyStart, bodyEnd);
        const args = argumentsOf(body, tool.properties);
        if (args === undefined) continue;
        if (scan.recovered.overlaps(start, from)) continue;
        calls.push({
          name: tool.name,
          arguments: sanitizeJsonValue(args) as Record<string, unknown>,
          start,
          end: from,
        });
      }
    }
    return calls.sort((a, b) => a.start - b.start);
  },
};

// The arguments a body's child elements give, when it holds nothing else and names only the tool's parameters.
function argumentsOf(
  body: string,
  properties: ReadonlyMap<string, unknown>,
): Record<string, unknown> | undefined {
  if (body.trim() === '') return properties.size === 0 ? {} : undefined;
  const schema = { properties: Object.fromEntries(properties) };
  const args = childElementArguments(body, schema);
  if (args === undefined || Object.keys(args).some((key) => !properties.has(key))) return undefined;
  // Text between the children is prose around tags, not a call: only blanks may stand there.
  if (!/^\s*</.test(body) || !/>\s*$/.test(body)) return undefined;
  return args;
}

// A list of tools, each time the same list (so the stream filter's marker table, cached per list, is built once).
const markersByNames = new Map<string, readonly ToolCallMarkupMarker[]>();
const maximumCachedLists = 64;

/**
 * The markers of the declared tools' elements (`<get_weather>` … `</get_weather>`), for the stream filter: the
 * element is hidden while it streams and decided as any markup block (cut out when it holds a call, shown as
 * written when it does not).
 */
export function toolNameTagMarkers(toolDefs: readonly ToolDefinition[]): readonly ToolCallMarkupMarker[] {
  const names = [...indexToolDefinitions(toolDefs).keys()].filter(isElementName);
  const key = names.join('\n');
  let markers = markersByNames.get(key);
  if (markers === undefined) {
    markers = Object.freeze(names.map((name) => ({ open: `<${name}>`, closes: [`</${name}>`] })));
    if (markersByNames.size >= maximumCachedLists) markersByNames.clear();
    markersByNames.set(key, markers);
  }
  return markers;
}
