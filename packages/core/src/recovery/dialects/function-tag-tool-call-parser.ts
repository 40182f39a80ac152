import type { ToolDefinition } from '@toolbus/spec';
import { coerceParameterValue } from '../coerce-parameter-value.ts';
import { findBlocksNamingTools } from '../delimited-blocks.ts';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { parseToolArguments } from '../parse-tool-arguments.ts';
import { recoveryWork } from '../recovery-work.ts';
import { sanitizeJsonValue } from '../sanitize-string.ts';
import { scanJsonValues } from '../scan-json-values.ts';
import { createTextScan } from '../text-scan.ts';
import { createForwardSearch, decodeXmlEntities, stripFunctionsPrefix } from '../text-search.ts';
import { functionNameAttributeCalls, functionNameAttributeOpen } from './function-name-attribute-calls.ts';

/** `<function>name</function>` followed by a JSON arguments object. */
const namedFunctionTag = Object.freeze({ open: '<function>', close: '</function>' });

/**
 * `<function=name>…</function>`: Qwen3-Coder / Qwen3.5 / Nemotron 3 / Seed-OSS put `<parameter=p>value</parameter>`
 * elements inside (usually wrapped in `<tool_call>` or `<seed:tool_call>`), Llama 3.1 and Functionary v3.1 put
 * a JSON object. Parameter values are typed by the tool's schema. The Qwen3-Coder template puts a line break
 * before and after each value: those are dropped, and a one-line value is trimmed. Models often leave out the
 * closing tags (`</parameter>`, `</function>`): then a value ends at the next `<parameter=` and is trimmed.
 */
export const functionTagToolCallParser: ToolCallTextParser = {
  name: 'function-tag',
  markers: [
    { open: '<function=', closes: ['</function>'] },
    { open: '<seed:tool_call>', closes: ['</seed:tool_call>'] },
    { open: functionNameAttributeOpen, closes: ['</function>'] },
  ],
  needles: ['<parameter=', '</parameter>', namedFunctionTag.open],
  detect: (text, scan = createTextScan(text)) =>
    scan.has('<function=') || scan.has(namedFunctionTag.open) || scan.has(functionNameAttributeOpen),
  parse(text: string, toolDefs: readonly ToolDefinition[], scan = createTextScan(text)): LocatedToolCall[] {
    const tools = scan.tools(toolDefs);
    const parameterSearch = scan.search('<parameter=');
    const closeParameterSearch = scan.search('</parameter>');
    const calls: LocatedToolCall[] = [];
    const tagEndSearch = createForwardSearch(text, '>');
    for (const block of findBlocksNamingTools(
      text,
      { open: '<function=', closes: ['</function>'] },
      scan,
      toolDefs,
    )) {
      // Text a higher-priority dialect recovered: a call here would be dropped, so it is not read.
      if (scan.recovered.overlaps(block.start, block.end)) continue;
      const nameEnd = tagEndSearch.next(block.contentStart);
      if (nameEnd < 0 || nameEnd > block.contentEnd || nameEnd - block.contentStart > 256) continue;
      const tool = tools.get(stripFunctionsPrefix(text.slice(block.contentStart, nameEnd).trim()));
      if (!tool) continue;
      recoveryWork.characters += block.contentEnd - block.contentStart;
      const json = scanJsonValues(text, { from: nameEnd + 1, to: block.contentEnd, anchored: true })[0];
      let argumentsObject: Record<string, unknown> = {};
      if (json) {
        argumentsObject = parseToolArguments(json.value);
      } else {
        let cursor = nameEnd + 1;
        while (cursor < block.contentEnd) {
          const hit = parameterSearch.next(cursor);
          if (hit < 0 || hit >= block.contentEnd) break;
          const keyEnd = tagEndSearch.next(hit);
          if (keyEnd < 0 || keyEnd >= block.contentEnd || keyEnd - hit > 256) break;
          const key = text.slice(hit + '<parameter='.length, keyEnd).trim();
          const closeHit = closeParameterSearch.next(keyEnd);
          const nextOpen = parameterSearch.next(keyEnd);
          let valueEnd = closeHit >= 0 && closeHit < block.contentEnd ? closeHit : block.contentEnd;
          if (nextOpen >= 0 && nextOpen < valueEnd) valueEnd = nextOpen;
          const rawValue = decodeXmlEntities(
            parameterText(text.slice(keyEnd + 1, valueEnd), valueEnd === closeHit),
          );
          argumentsObject[key] = coerceParameterValue(rawValue, { schema: tool.properties.get(key) });
          cursor = valueEnd === closeHit ? closeHit + '</parameter>'.length : valueEnd;
        }
        argumentsObject = sanitizeJsonValue(argumentsObject) as Record<string, unknown>;
      }
      calls.push({ name: tool.name, arguments: argumentsObject, start: block.start, end: block.end });
    }
    calls.push(...namedFunctionCalls(text, toolDefs, scan));
    calls.push(...functionNameAttributeCalls(text, toolDefs, scan));
    return calls;
  },
};

/**
 * `<function>terminal</function>\n{"command": "ls"}`: the tool's name in a bare `<function>` element and its
 * arguments as the JSON object after it, as Gemma 3 and Qwen3.6 write inside `<tool_call>` (mlx-omni-server
 * #126). Only a declared tool's name counts; the range covers the element and the object.
 */
function namedFunctionCalls(
  text: string,
  toolDefs: readonly ToolDefinition[],
  scan: ReturnType<typeof createTextScan>,
): LocatedToolCall[] {
  const calls: LocatedToolCall[] = [];
  if (!scan.has(namedFunctionTag.open)) return calls;
  const tools = scan.tools(toolDefs);
  const closeSearch = createForwardSearch(text, namedFunctionTag.close);
  for (const start of scan.positions(namedFunctionTag.open)) {
    const nameStart = start + namedFunctionTag.open.length;
    const close = closeSearch.next(nameStart);
    if (close < 0 || close - nameStart > 256) continue;
    const tool = tools.get(stripFunctionsPrefix(text.slice(nameStart, close).trim()));
    if (!tool) continue;
    const from = close + namedFunctionTag.close.length;
    const json = scanJsonValues(text, {
      from,
      to: Math.min(text.length, from + 1_048_576),
      anchored: true,
    })[0];
    if (!json || json.start - from > 64 || text.slice(from, json.start).trim() !== '') continue;
    recoveryWork.characters += json.end - start;
    calls.push({ name: tool.name, arguments: parseToolArguments(json.value), start, end: json.end });
  }
  return calls;
}

/**
 * A parameter's value without the template's layout: the line breaks around it, and the indentation of the
 * closing tag's line on every line of it (a call written indented, as Nemotron 3 does, indents its values too).
 */
function parameterText(raw: string, closed: boolean): string {
  const indent = /\r?\n([ \t]+)$/.exec(raw)?.[1];
  let value = raw.replace(/^\r?\n/, '').replace(/\r?\n[ \t]*$/, '');
  if (indent !== undefined)
    value = value
      .split('\n')
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      .join('\n');
  return !closed || !value.includes('\n') ? value.trim() : value;
}
