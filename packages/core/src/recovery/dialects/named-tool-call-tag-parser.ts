import type { ToolDefinition } from '@toolbus/spec';
import { coerceParameterValue } from '../coerce-parameter-value.ts';
import { findBlocksNamingTools } from '../delimited-blocks.ts';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { parseToolArguments } from '../parse-tool-arguments.ts';
import { recoveryWork } from '../recovery-work.ts';
import { sanitizeJsonValue } from '../sanitize-string.ts';
import { scanJsonValues } from '../scan-json-values.ts';
import { createTextScan } from '../text-scan.ts';
import {
  decodeXmlEntities,
  readIdentifierEnd,
  skipWhitespace,
  stripFunctionsPrefix,
} from '../text-search.ts';

/**
 * `<tool_call>name …</tool_call>` with the tool name written first: GLM-4.5/4.6/4.7 and Ling follow it with
 * `<arg_key>k</arg_key><arg_value>v</arg_value>` pairs (values typed by the schema), Hunyuan with a JSON
 * object, often in a ```json fence.
 */
export const namedToolCallTagParser: ToolCallTextParser = {
  name: 'named-tool-call-tag',
  markers: [{ open: '<tool_call>', closes: ['</tool_call>'] }],
  needles: ['<arg_key>', '</arg_key>', '<arg_value>', '</arg_value>'],
  detect: (text, scan = createTextScan(text)) => scan.has('<tool_call>'),
  parse(text: string, toolDefs: readonly ToolDefinition[], scan = createTextScan(text)): LocatedToolCall[] {
    const tools = scan.tools(toolDefs);
    const keySearch = scan.search('<arg_key>');
    const keyCloseSearch = scan.search('</arg_key>');
    const valueSearch = scan.search('<arg_value>');
    const valueCloseSearch = scan.search('</arg_value>');
    const calls: LocatedToolCall[] = [];
    for (const block of findBlocksNamingTools(
      text,
      { open: '<tool_call>', closes: ['</tool_call>'] },
      scan,
      toolDefs,
    )) {
      // Text a higher-priority dialect recovered: a call here would be dropped, so it is not read.
      if (scan.recovered.overlaps(block.start, block.end)) continue;
      const nameStart = skipWhitespace(text, block.contentStart, block.contentEnd);
      const nameEnd = readIdentifierEnd(text, nameStart, block.contentEnd);
      const tool = tools.get(stripFunctionsPrefix(text.slice(nameStart, nameEnd)));
      if (!tool) continue;
      recoveryWork.characters += block.contentEnd - block.contentStart;
      let argumentsObject: Record<string, unknown> = {};
      const firstKey = keySearch.next(nameEnd);
      if (firstKey >= 0 && firstKey < block.contentEnd) {
        let cursor = firstKey;
        while (cursor < block.contentEnd) {
          const keyHit = keySearch.next(cursor);
          if (keyHit < 0 || keyHit >= block.contentEnd) break;
          const keyClose = keyCloseSearch.next(keyHit);
          if (keyClose < 0 || keyClose >= block.contentEnd) break;
          // The value follows the key; GLM-4.7 sometimes leaves out the `<arg_value>` opener but still closes
          // the value, so the value runs to `</arg_value>`, or else to the next key or the end of the block.
          let valueStart = keyClose + '</arg_key>'.length;
          const valueHit = valueSearch.next(valueStart);
          if (valueHit >= 0 && skipWhitespace(text, valueStart, block.contentEnd) === valueHit)
            valueStart = valueHit + '<arg_value>'.length;
          let valueEnd = block.contentEnd;
          const valueClose = valueCloseSearch.next(valueStart);
          if (valueClose >= 0 && valueClose < valueEnd) valueEnd = valueClose;
          const nextKey = keySearch.next(valueStart);
          if (nextKey >= 0 && nextKey < valueEnd) valueEnd = nextKey;
          const key = decodeXmlEntities(text.slice(keyHit + '<arg_key>'.length, keyClose).trim());
          // Trimmed like the other XML dialects' values: the template's line breaks around a value are not part of it.
          const rawValue = decodeXmlEntities(text.slice(valueStart, valueEnd).trim());
          argumentsObject[key] = coerceParameterValue(rawValue, { schema: tool.properties.get(key) });
          cursor = valueEnd + 1;
        }
        argumentsObject = sanitizeJsonValue(argumentsObject) as Record<string, unknown>;
      } else {
        let bodyStart = skipWhitespace(text, nameEnd, block.contentEnd);
        if (text.startsWith('```', bodyStart)) {
          const lineEnd = text.indexOf('\n', bodyStart);
          bodyStart = lineEnd >= 0 && lineEnd < block.contentEnd ? lineEnd + 1 : bodyStart;
        }
        const json = scanJsonValues(text, { from: bodyStart, to: block.contentEnd, anchored: true })[0];
        if (json) argumentsObject = parseToolArguments(json.value);
        else if (skipStrayArgumentTags(text, bodyStart, block.contentEnd) < block.contentEnd) continue;
      }
      calls.push({ name: tool.name, arguments: argumentsObject, start: block.start, end: block.end });
    }
    return calls;
  },
};

const strayArgumentTags = ['</arg_value>', '</arg_key>', '<arg_value>'];

/**
 * Past whitespace and the argument tags a zero-parameter GLM call sometimes trails (`<tool_call>name</arg_value>`):
 * a body holding only these is empty.
 */
function skipStrayArgumentTags(text: string, from: number, to: number): number {
  let position = skipWhitespace(text, from, to);
  for (let tag = strayArgumentTags.find((candidate) => text.startsWith(candidate, position)); tag; ) {
    position = skipWhitespace(text, position + tag.length, to);
    tag = strayArgumentTags.find((candidate) => text.startsWith(candidate, position));
  }
  return position;
}
