import { withoutAnswerWrapper } from './answer-wrapper.ts';
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
  /**
   * The marker stands alone (`closes` is empty, but for an answer wrapper's, see {@link wrapsAnswer}): it is
   * hidden and what follows it is text, as after a channel header such as Harmony's `<|channel|>final<|message|>`.
   * It says nothing about a call (the recovery gate ignores it).
   */
  readonly token?: boolean;
  /**
   * The block's content is the model's reasoning (Harmony's analysis channel): never shown as answer text nor
   * kept as such, handed out as reasoning by the stream filter, and no sign of a call (the recovery gate
   * ignores it).
   */
  readonly reasoning?: boolean;
  /**
   * The marker counts only where it opens the answer (nothing but whitespace before it), as `<think>` does: a
   * model may write the same tag in prose.
   */
  readonly opensAnswer?: boolean;
  /**
   * A see-through wrapper of the answer (Granite 3.3's `<response>…</response>`; with `token` and `opensAnswer`):
   * where it opens the answer (after thinking and blanks) the marker and the first of its `closes` after it are
   * hidden, and what is between is answer text, shown as it streams and read for calls like any. Elsewhere the
   * marker is text, and so is a close with no hidden opening before it.
   */
  readonly wrapsAnswer?: boolean;
  /**
   * The model's template ends the assistant's turn where this block closes: it renders a call turn as the
   * message's text, then the block, then the end-of-turn token, and its prompt says no other text goes with a
   * call (Hunyuan A13B: `…</tool_calls><|eos|>`). Text after a closed block that held a call is the model
   * writing on past its turn (the serving stack missed the stop): not shown, and not read for further calls.
   */
  readonly endsTurn?: boolean;
}

/** The `<function_calls>` block of Anthropic-style XML. */
export const functionCallsMarker: ToolCallMarkupMarker = Object.freeze({
  open: '<function_calls',
  closes: ['</function_calls>'],
  requiresTagEnd: true,
});

/** Whether `text` holds the opening marker of any of `markers` (ASCII case ignored). */
export function hasToolCallMarker(text: string, markers: readonly ToolCallMarkupMarker[]): boolean {
  let lower: string | undefined;
  for (const group of openingGroupsOf(markers)) {
    // Nearly every answer holds none of the markers' first characters (`<`, `[`, `✿`…): one native search each,
    // on the text as it is, rules their markers out without lower-casing the text or a search per marker.
    if (group.first !== undefined && !text.includes(group.first)) continue;
    lower ??= lowerCaseAscii(text);
    for (const { open, requiresTagEnd } of group.opens) {
      for (let at = lower.indexOf(open); at >= 0; at = lower.indexOf(open, at + 1)) {
        if (!requiresTagEnd || isTagEnd(lower.charCodeAt(at + open.length))) return true;
      }
    }
  }
  return false;
}

/** Opening markers (lower-cased) that share a first character; `first` undefined: an ASCII letter (any case). */
interface OpeningGroup {
  readonly first: string | undefined;
  readonly opens: readonly { readonly open: string; readonly requiresTagEnd: boolean }[];
}

const openingGroups = new WeakMap<readonly ToolCallMarkupMarker[], readonly OpeningGroup[]>();

// The markers that are a sign of a call (not a stand-alone token, not reasoning), by first character, once per
// marker list.
function openingGroupsOf(markers: readonly ToolCallMarkupMarker[]): readonly OpeningGroup[] {
  let groups = openingGroups.get(markers);
  if (groups === undefined) {
    const byFirst = new Map<string | undefined, { open: string; requiresTagEnd: boolean }[]>();
    for (const marker of markers) {
      if (marker.token === true || marker.reasoning === true) continue;
      const open = lowerCaseAscii(marker.open);
      const first = open === '' || /[a-z]/.test(open[0]!) ? undefined : open[0];
      const opens = byFirst.get(first) ?? [];
      opens.push({ open, requiresTagEnd: marker.requiresTagEnd === true });
      byFirst.set(first, opens);
    }
    groups = [...byFirst].map(([first, opens]) => ({ first, opens }));
    openingGroups.set(markers, groups);
  }
  return groups;
}

const tagPatterns = new WeakMap<readonly ToolCallMarkupMarker[], RegExp>();

/**
 * The text with the markers' tags removed (their content stays, except a reasoning block's, which goes
 * whole): what a message says once its calls are cut out, without the markup left around them. An opening tag
 * loses its attributes too (`<invoke name="x">`); a closing tag may have a space before `>`. A tag right after
 * a backtick (inline code) stays. A see-through wrapper goes only where it opens the answer, with its first close
 * (see {@link withoutAnswerWrapper}).
 */
export function withoutToolCallMarkupTags(text: string, markers: readonly ToolCallMarkupMarker[]): string {
  let pattern = tagPatterns.get(markers);
  if (!pattern) {
    const alternatives: string[] = [];
    for (const marker of markers) {
      if (marker.wrapsAnswer === true) continue;
      const open = escapeRegExp(marker.open);
      if (marker.reasoning === true) {
        // The whole block, to its first close or the end of the text.
        const closes = marker.closes.map(escapeRegExp);
        const block = `${open}[\\s\\S]*?(?:${[...closes, '$'].join('|')})`;
        alternatives.push(marker.opensAnswer === true ? `^\\s*${block}` : block);
        continue;
      }
      const isOpenTag = marker.token !== true && marker.open.startsWith('<') && !marker.open.endsWith('>');
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
  return withoutAnswerWrapper(text, markers).replace(pattern, '');
}

function isTagEnd(code: number): boolean {
  return code === 0x3e || code === 0x2f || isWhitespaceCode(code);
}
