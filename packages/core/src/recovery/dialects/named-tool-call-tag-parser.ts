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
          const valueHit = valueSearch.next(keyHit);
          if (keyClose < 0 || valueHit < 0 || valueHit >= block.contentEnd || keyClose > valueHit) break;
          const valueClose = valueCloseSearch.next(valueHit);
          const valueEnd = valueClose >= 0 && valueClose < block.contentEnd ? valueClose : block.contentEnd;
          const key = decodeXmlEntities(text.slice(keyHit + '<arg_key>'.length, keyClose).trim());
          const rawValue = decodeXmlEntities(text.slice(valueHit + '<arg_value>'.length, valueEnd));
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
        else if (skipWhitespace(text, bodyStart, block.contentEnd) < block.contentEnd) continue;
      }
      calls.push({ name: tool.name, arguments: argumentsObject, start: block.start, end: block.end });
    }
    return calls;
  },
};
