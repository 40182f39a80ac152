import type { ToolDefinition } from '@toolbus/spec';
import { argumentsAt } from '../arguments-at.ts';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { createTextScan } from '../text-scan.ts';
import { readIdentifierEnd, skipWhitespace, stripFunctionsPrefix } from '../text-search.ts';

const nameMarker = '✿FUNCTION✿';
const argumentsMarker = '✿ARGS✿';
const resultMarker = '✿RESULT✿';
const exitMarker = '✿RETURN✿';

/**
 * Qwen-Agent's function-calling prompt (Qwen 2 / 2.5 / QwQ / Qwen3 served through it, or prompted the same
 * way): `✿FUNCTION✿: get_weather` newline `✿ARGS✿: {"city": "Oslo"}`, several pairs for parallel calls, then
 * `✿RESULT✿` where the tool's result goes and `✿RETURN✿` before the reply. Qwen-Agent stops generation at
 * `✿RESULT✿`; a server told no stop word leaves it in the text, and it goes with the call. The reply's
 * `✿RETURN✿:` header is a stand-alone marker (hidden, the reply shown).
 */
export const qwenAgentToolCallParser: ToolCallTextParser = {
  name: 'qwen-agent',
  markers: [
    { open: nameMarker, closes: [resultMarker] },
    { open: `${exitMarker}:`, closes: [], token: true },
    { open: exitMarker, closes: [], token: true },
  ],
  needles: [argumentsMarker],
  detect: (text, scan = createTextScan(text)) => scan.positions(nameMarker, true).length > 0,
  parse(text: string, toolDefs: readonly ToolDefinition[], scan = createTextScan(text)): LocatedToolCall[] {
    const tools = scan.tools(toolDefs);
    const calls: LocatedToolCall[] = [];
    let position = 0;
    for (const hit of scan.positions(nameMarker, true)) {
      if (hit < position) continue;
      const nameStart = afterColon(text, hit + nameMarker.length);
      const nameEnd = readIdentifierEnd(text, nameStart);
      const tool = tools.get(stripFunctionsPrefix(text.slice(nameStart, nameEnd)));
      if (!tool) continue;
      const argumentsMarkerAt = skipWhitespace(text, nameEnd);
      if (!text.startsWith(argumentsMarker, argumentsMarkerAt)) continue;
      const written = argumentsAt(text, afterColon(text, argumentsMarkerAt + argumentsMarker.length));
      if (!written) continue;
      let end = written.end;
      const after = skipWhitespace(text, end);
      if (text.startsWith(resultMarker, after)) end = after + resultMarker.length;
      calls.push({ name: tool.name, arguments: written.arguments, start: hit, end });
      position = end;
    }
    return calls;
  },
};

/** Past the `:` (and the spaces around it) that follows a marker, if there is one. */
function afterColon(text: string, from: number): number {
  let at = from;
  while (text.charCodeAt(at) === 0x20 || text.charCodeAt(at) === 0x09) at++;
  if (text.charCodeAt(at) !== 0x3a) return from;
  at++;
  while (text.charCodeAt(at) === 0x20 || text.charCodeAt(at) === 0x09) at++;
  return at;
}
