/** One kind of tool-call markup to hide: an opening marker and what ends it. */
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

/** The `<function_calls>` block of Anthropic-style XML (seed §5.1). */
export const functionCallsMarker: ToolCallMarkupMarker = Object.freeze({
  open: '<function_calls',
  closes: ['</function_calls>'],
  requiresTagEnd: true,
});

/** Markers of every dialect with unambiguous delimiters (peers.md §5), `<function_calls>` included. */
export const defaultToolCallMarkupMarkers: readonly ToolCallMarkupMarker[] = Object.freeze([
  functionCallsMarker,
  { open: '<tool_call>', closes: ['</tool_call>'] },
  { open: '<tool_calls>', closes: ['</tool_calls>'] },
  { open: '<seed:tool_call>', closes: ['</seed:tool_call>'] },
  { open: '<minimax:tool_call>', closes: ['</minimax:tool_call>'] },
  { open: '<function=', closes: ['</function>'] },
  { open: '[TOOL_CALLS]', closes: [] },
  { open: '<|python_tag|>', closes: ['<|eom_id|>', '<|eot_id|>'] },
  { open: '<|python_start|>', closes: ['<|python_end|>'] },
  { open: '<|tool_call_start|>', closes: ['<|tool_call_end|>'] },
  { open: '<｜tool▁calls▁begin｜>', closes: ['<｜tool▁calls▁end｜>'] },
  { open: '<|tool_calls_section_begin|>', closes: ['<|tool_calls_section_end|>'] },
  { open: '<|start|>assistant<|channel|>commentary to=', closes: ['<|call|>'] },
  { open: '<|channel|>commentary to=', closes: ['<|call|>'] },
  { open: '<|tool_call|>', closes: [] },
  { open: '<TOOLCALL>', closes: ['</TOOLCALL>'] },
  { open: '<|START_ACTION|>', closes: ['<|END_ACTION|>'] },
  { open: '<|action_start|>', closes: ['<|action_end|>'] },
  { open: '<|tools_prefix|>', closes: ['<|tools_suffix|>'] },
  { open: '<|tool_call>', closes: ['<tool_call|>'] },
  { open: '<start_function_call>', closes: ['<end_function_call>'] },
]);

interface PreparedMarker {
  readonly open: string;
  readonly closes: readonly string[];
  readonly requiresTagEnd: boolean;
  readonly maxCloseLength: number;
}

/**
 * Removes tool-call markup blocks from streamed text the user sees, whatever the chunking (seed §5.1): a
 * marker split across chunks is still found, in any letter case. Only a possible marker prefix at the end of
 * the input is held back, and no decision is taken on a boundary not yet seen (a chunk ending right after
 * `<function_calls` waits for the next character). An unclosed block is dropped by `flush()`. The work per
 * call is proportional to the chunk (the held-back text is shorter than the longest marker). The raw text
 * must be kept separately by the caller for recovery.
 */
export class ToolCallMarkupStreamFilter {
  readonly #markers: readonly PreparedMarker[];
  readonly #firstCharacters: ReadonlySet<string>;
  #pending = '';
  #inside: PreparedMarker | undefined;

  constructor(markers: readonly ToolCallMarkupMarker[] = defaultToolCallMarkupMarkers) {
    this.#markers = markers
      .filter((marker) => marker.open.length > 0)
      .map((marker) => ({
        open: lowerCaseAscii(marker.open),
        closes: marker.closes.filter((close) => close.length > 0).map(lowerCaseAscii),
        requiresTagEnd: marker.requiresTagEnd === true,
        maxCloseLength: Math.max(0, ...marker.closes.map((close) => close.length)),
      }));
    this.#firstCharacters = new Set(this.#markers.map((marker) => marker.open[0]!));
  }

  /** Feeds the next chunk; returns the visible text that can be shown now (possibly empty). */
  process(chunk: string): string {
    if (typeof chunk !== 'string' || chunk.length === 0) return '';
    const buffer = this.#pending + chunk;
    this.#pending = '';
    const lower = lowerCaseAscii(buffer);
    let output = '';
    let position = 0;
    while (position < buffer.length) {
      if (this.#inside) {
        const marker = this.#inside;
        if (marker.closes.length === 0) return output;
        let closeAt = -1;
        let closeLength = 0;
        for (const close of marker.closes) {
          const hit = lower.indexOf(close, position);
          if (hit >= 0 && (closeAt < 0 || hit < closeAt)) {
            closeAt = hit;
            closeLength = close.length;
          }
        }
        if (closeAt < 0) {
          // Keep just enough to recognise a closing marker split across chunks.
          this.#pending = buffer.slice(Math.max(position, buffer.length - (marker.maxCloseLength - 1)));
          return output;
        }
        this.#inside = undefined;
        position = closeAt + closeLength;
        continue;
      }
      const found = this.#findOpening(lower, position);
      if (found.kind === 'none') {
        output += buffer.slice(position);
        return output;
      }
      output += buffer.slice(position, found.index);
      if (found.kind === 'partial') {
        this.#pending = buffer.slice(found.index);
        return output;
      }
      this.#inside = found.marker;
      position = found.index + found.marker.open.length;
    }
    return output;
  }

  /** Ends the stream: returns held-back text, or nothing when the stream ended inside a block. */
  flush(): string {
    const rest = this.#inside ? '' : this.#pending;
    this.#pending = '';
    this.#inside = undefined;
    return rest;
  }

  #findOpening(
    lower: string,
    from: number,
  ):
    | { kind: 'none' }
    | { kind: 'partial'; index: number }
    | { kind: 'full'; index: number; marker: PreparedMarker } {
    for (let index = from; index < lower.length; index++) {
      if (!this.#firstCharacters.has(lower[index]!)) continue;
      let full: PreparedMarker | undefined;
      let partial = false;
      for (const marker of this.#markers) {
        const state = matchAt(lower, index, marker);
        if (state === 'partial') partial = true;
        else if (state === 'full' && (!full || marker.open.length > full.open.length)) full = marker;
      }
      if (partial) return { kind: 'partial', index };
      if (full) return { kind: 'full', index, marker: full };
    }
    return { kind: 'none' };
  }
}

/** {@link ToolCallMarkupStreamFilter} for `<function_calls>…</function_calls>` only (Onyx's filter). */
export class XmlToolCallStreamFilter extends ToolCallMarkupStreamFilter {
  constructor() {
    super([functionCallsMarker]);
  }
}

function matchAt(lower: string, index: number, marker: PreparedMarker): 'full' | 'partial' | 'none' {
  const open = marker.open;
  const available = lower.length - index;
  const compared = Math.min(available, open.length);
  for (let offset = 0; offset < compared; offset++) {
    if (lower.charCodeAt(index + offset) !== open.charCodeAt(offset)) return 'none';
  }
  if (available < open.length) return 'partial';
  if (!marker.requiresTagEnd) return 'full';
  if (available === open.length) return 'partial';
  const follower = lower.charCodeAt(index + open.length);
  return follower === 0x3e || follower === 0x20 || follower === 0x0a || follower === 0x0d || follower === 0x09
    ? 'full'
    : 'none';
}

// ASCII-only lower-casing keeps every index aligned with the original chunk.
function lowerCaseAscii(text: string): string {
  const lower = text.toLowerCase();
  return lower.length === text.length ? lower : text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}
