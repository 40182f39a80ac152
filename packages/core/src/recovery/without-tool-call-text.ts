import type { LocatedToolCall } from './extracted-tool-call.ts';
import type { ToolCallMarkupMarker } from './tool-call-markup-marker.ts';
import { withoutToolCallMarkupTags } from './tool-call-markup-marker.ts';
import { defaultToolCallMarkupMarkers } from './tool-call-parser-registry.ts';

const emptyFence = /```[a-zA-Z_]*\s*```/g;
// What joins one call to the next when a model writes several in a row (Llama 3.2's `;`, a list's `,`).
const callSeparator = /^[\s;,]*$/;
// A Markdown list item's marker opening the line right before a call.
const listMarkerBeforeCall = /(^|\n)[ \t]{0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+$/;

// An opening tag at the end of the text kept so far, and its closing tag at the start of what follows the call.
const openingTagAtEnd = /<([A-Za-z][\w-]{0,31})>\s*$/;
const closingTagAtStart = /^\s*<\/([A-Za-z][\w-]{0,31})\s*>/;

/** The lengths of a tag pair that wraps nothing but a call (the kept text's end, the rest's start), if any. */
function wrappingTag(kept: string, text: string, from: number): { open: number; close: number } | undefined {
  // Bounded slices: the patterns are tried on a few dozen characters, never on the whole text.
  const tail = kept.slice(-64);
  const opening = openingTagAtEnd.exec(tail);
  if (!opening) return undefined;
  const closing = closingTagAtStart.exec(text.slice(from, from + 64));
  if (!closing || closing[1]!.toLowerCase() !== opening[1]!.toLowerCase()) return undefined;
  return { open: tail.length - opening.index, close: closing[0].length };
}

/**
 * What a message really says once its recovered calls are taken out: the text minus every call's range, minus
 * the markup tags left around them (an empty `<function_calls>` wrapper, a `[TOOL_CALLS]` token) and the code
 * fences they leave empty, the `;` or `,` that joined two calls, and the marker of a list item that held only a
 * call, trimmed. This is the prose shown after a retraction and kept in the history.
 */
export function withoutToolCallText(
  text: string,
  calls: readonly Pick<LocatedToolCall, 'start' | 'end'>[],
  markers: readonly ToolCallMarkupMarker[] = defaultToolCallMarkupMarkers,
): string {
  if (calls.length === 0) return text;
  let result = '';
  let position = 0;
  for (const call of [...calls].sort((left, right) => left.start - right.start)) {
    if (call.start < position) continue;
    const gap = text.slice(position, call.start);
    // Between two calls only a separator stands: it was part of the calls' text, not prose.
    if (position > 0 && callSeparator.test(gap)) result += gap.replace(/[;,]/g, '');
    // A list item that held only the call (`- [get_weather(…)]`) goes with it.
    else result += gap.replace(listMarkerBeforeCall, '$1');
    position = call.end;
    // A tag that held only the call (`<tool>`, `<response>`, `<json>`…, llama.cpp's Hermes parser tests) goes too.
    const wrapper = wrappingTag(result, text, position);
    if (wrapper) {
      result = result.slice(0, result.length - wrapper.open);
      position += wrapper.close;
    }
  }
  result += text.slice(position);
  return withoutToolCallMarkupTags(result, markers)
    .replace(emptyFence, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
