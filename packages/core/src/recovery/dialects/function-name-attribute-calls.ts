import type { ToolDefinition } from '@toolbus/spec';
import { argumentsAt } from '../arguments-at.ts';
import { coerceParameterValue } from '../coerce-parameter-value.ts';
import type { LocatedToolCall } from '../extracted-tool-call.ts';
import { parseOpeningTag } from '../markup-attributes.ts';
import { recoveryWork } from '../recovery-work.ts';
import { sanitizeJsonValue } from '../sanitize-string.ts';
import type { TextScan } from '../text-scan.ts';
import {
  createForwardSearch,
  decodeXmlEntities,
  skipWhitespace,
  stripFunctionsPrefix,
} from '../text-search.ts';

/** The opening of a `<function name="…">` element. */
export const functionNameAttributeOpen = '<function name=';
const functionClose = '</function>';
/** The longest element read (a bound, so hostile text of unclosed parameters costs linear time). */
const maximumElementLength = 262_144;
// `<param name="k">value</param>` or `<parameter name="k">…</parameter>`, the value maybe in CDATA.
const parameterPattern =
  /<(param|parameter)\s+name\s*=\s*(?:"([^"]{0,256})"|'([^']{0,256})')\s*>(?:<!\[CDATA\[([\s\S]*?)\]\]>|([^<]*))<\/\1\s*>/g;

/**
 * `<function name="get_weather"><param name="location">Rome</param></function>`: MiniCPM5's chat template (values
 * in CDATA where they hold markup; omlx #3429) and Gemma through OpenRouter (`<parameter name="path">`,
 * hermes-agent #12746), or a JSON object in the element. Only an element naming a declared tool is read; values
 * are typed by the tool's schema.
 * The range covers the element.
 */
export function functionNameAttributeCalls(
  text: string,
  toolDefs: readonly ToolDefinition[],
  scan: TextScan,
): LocatedToolCall[] {
  const calls: LocatedToolCall[] = [];
  if (!scan.has(functionNameAttributeOpen)) return calls;
  const tools = scan.tools(toolDefs);
  const closeSearch = createForwardSearch(text, functionClose);
  let readTo = 0;
  for (const start of scan.positions(functionNameAttributeOpen)) {
    if (start < readTo || scan.recovered.overlaps(start, start + 1)) continue;
    const tag = parseOpeningTag(text, start + '<function'.length);
    if (!tag) continue;
    const tool = tools.get(stripFunctionsPrefix((tag.attributes.get('name') ?? '').trim()));
    if (!tool) continue;
    const close = tag.selfClosing ? tag.end : closeSearch.next(tag.end);
    if (close < 0 || close - start > maximumElementLength) continue;
    const end = tag.selfClosing ? tag.end : close + functionClose.length;
    readTo = end;
    recoveryWork.characters += end - start;
    const argumentsObject: Record<string, unknown> = {};
    for (const match of text.slice(tag.end, close).matchAll(parameterPattern)) {
      const key = match[2] ?? match[3] ?? '';
      const cdata = match[4];
      const raw = cdata ?? decodeXmlEntities((match[5] ?? '').trim());
      argumentsObject[key] = coerceParameterValue(raw, { schema: tool.properties.get(key) });
    }
    // No parameter elements: the arguments as a JSON object in the element (`<function name="x">{"k": 1}`,
    // the Hermes-style form llama.cpp's chat parser tests quote).
    if (Object.keys(argumentsObject).length === 0 && !tag.selfClosing) {
      const bodyStart = skipWhitespace(text, tag.end, close);
      if (text.charCodeAt(bodyStart) === 0x7b) {
        Object.assign(argumentsObject, argumentsAt(text, bodyStart, close)?.arguments);
      }
    }
    calls.push({
      name: tool.name,
      arguments: sanitizeJsonValue(argumentsObject) as Record<string, unknown>,
      start,
      end,
    });
  }
  return calls;
}
