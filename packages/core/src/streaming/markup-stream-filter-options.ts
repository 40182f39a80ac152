/** Options for `ToolCallMarkupStreamFilter`. */
export interface ToolCallMarkupStreamFilterOptions {
  /**
   * What to show for a markup block once it closes, given its raw text (markers included) and whether it opened
   * its line (nothing but whitespace before it there): by default nothing. The answer filter shows a block that
   * holds no call as written.
   */
  readonly release?: (block: string, opensLine: boolean) => string;
  /**
   * Whether a `[` at `at` in text shown may open what the caller looks for (the answer filter: a bracketed call
   * within a line). The search for the markers' first characters meets every `[` when `[` is one of them (see
   * `searchesFor`); the filter's `mayHaveShownBracket` then reports the chunks that showed such a `[`, so the
   * caller does not search every chunk again.
   */
  readonly bracketOpens?: (text: string, at: number) => boolean;
  /**
   * Whether a `{` at `at` in text shown, outside inline code, may open what the caller looks for (the answer
   * filter: a JSON call within a line). Given with `braceKeyFirsts`, the search also meets each `{"` followed by
   * one of those letters and asks this there; the filter's `mayHaveShownBracket` then counts such a `{` as it
   * counts a `[` (a `{` or `{"` ending the text is the caller's to look at: see `endsInInlineCode`).
   */
  readonly braceOpens?: (text: string, at: number) => boolean;
  /** The letters a key that `braceOpens` may accept starts with (`n` of `"name"`). */
  readonly braceKeyFirsts?: string;
  /**
   * Whether the namespace at `at` (`functions.`, which the search also meets when `braceKeyFirsts` is given) may
   * open what the caller looks for (the answer filter: a namespaced call within a line); counted as `[` is.
   */
  readonly namespaceOpens?: (text: string, at: number) => boolean;
}
