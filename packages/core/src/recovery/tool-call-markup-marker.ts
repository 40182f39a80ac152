import { escapeRegExp, isWhitespaceCode, lowerCaseAscii } from './text-search.ts';

/**
 * One kind of tool-call markup: an opening marker and what ends it. Each dialect parser declares the markers
 * of its dialect; the stream filter hides these blocks, the recovery gate fires on them and shown prose loses
 * their tags, all from the one parser registry.
 */
export interface ToolCallMarkupMarker {
  /** Opening marker, matched case-insensitively (ASCII letters). */
  readonly open: string;
  /**
   * Closing markers (case-insensitive); the first one found ends the block. Empty: the block runs to the end
   * of the stream (Mistral's `[TOOL_CALLS]`, Granite's `<|tool_call|>`).
   */
  readonly closes: readonly string[];
  /**
   * The opening marker counts only when the next character is `>` or whitespace (for `<function_calls`, so
   * `<function_callsomething>` stays text).
   */
  readonly requiresTagEnd?: boolean;
}

/** The `<function_calls>` block of Anthropic-style XML. */
export const functionCallsMarker: ToolCallMarkupMarker = Object.freeze({
  open: '<function_calls',
  closes: ['</function_calls>'],
  requiresTagEnd: true,
});

/** Whether `text` holds the opening marker of any of `markers` (ASCII case ignored). */
export function hasToolCallMarker(text: string, markers: readonly ToolCallMarkupMarker[]): boolean {
  const lower = lowerCaseAscii(text);
  for (const marker of markers) {
    const open = lowerCaseAscii(marker.open);
    for (let at = lower.indexOf(open); at >= 0; at = lower.indexOf(open, at + 1)) {
      if (!marker.requiresTagEnd || isTagEnd(lower.charCodeAt(at + open.length))) return true;
    }
  }
  return false;
}

const tagPatterns = new WeakMap<readonly ToolCallMarkupMarker[], RegExp>();

/**
 * The text with the markers' tags removed (their content stays): how text that sat inside markup but held no
 * call is shown. An opening tag loses its attributes too (`<invoke name="x">`); a closing tag may have a space
 * before `>`. A tag right after a backtick (inline code) stays.
 */
export function withoutToolCallMarkupTags(text: string, markers: readonly ToolCallMarkupMarker[]): string {
  let pattern = tagPatterns.get(markers);
  if (!pattern) {
    const alternatives: string[] = [];
    for (const marker of markers) {
      const open = escapeRegExp(marker.open);
      const isOpenTag = marker.open.startsWith('<') && !marker.open.endsWith('>');
      alternatives.push(
        isOpenTag ? `${open}${marker.requiresTagEnd ? '(?=[\\s/>])' : ''}(?:[^<>]*>)?` : open,
      );
      for (const close of marker.closes) {
        alternatives.push(
          close.startsWith('</') && close.endsWith('>')
            ? `${escapeRegExp(close.slice(0, -1))}\\s*>`
            : escapeRegExp(close),
        );
      }
    }
    // A tag right after a backtick is mentioned in inline code, not markup.
    pattern = new RegExp(`(?<!\`)(?:${alternatives.join('|')})`, 'gi');
    tagPatterns.set(markers, pattern);
  }
  return text.replace(pattern, '');
}

function isTagEnd(code: number): boolean {
  return code === 0x3e || code === 0x2f || isWhitespaceCode(code);
}
