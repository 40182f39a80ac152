import type { ToolDefinition } from '@toolbus/spec';
import type { TextScan } from './text-scan.ts';
import type { ToolCallMarkupMarker } from './tool-call-markup-marker.ts';

/** A tool call recovered from text the model wrote: the tool's name and its arguments object. */
export interface ExtractedToolCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/**
 * A recovered call with the character range `[start, end)` of the markup it came from. Ranges let the
 * extractor order calls by appearance and drop a call found inside another call's markup (the inner
 * arguments object of a call, a JSON body inside a dialect's tags).
 */
export interface LocatedToolCall extends ExtractedToolCall {
  readonly start: number;
  readonly end: number;
}

/**
 * One textual tool-call dialect (Hermes tags, Mistral `[TOOL_CALLS]`, pythonic lists, ...). `detect` must be
 * cheap (a substring test): it decides whether `parse` runs at all. `parse` must take time linear in the
 * text and return calls with their ranges; it may return unknown tool names (the extractor drops them).
 */
export interface ToolCallTextParser {
  readonly name: string;
  /**
   * The markup only this dialect writes (its special tokens or tags), if it has any: the stream filter hides
   * these blocks, the recovery gate fires on them. Markup-free dialects (bare JSON, pythonic, ReAct) have none.
   */
  readonly markers?: readonly ToolCallMarkupMarker[];
  /**
   * Other strings the parser searches for (separators, inner tags): the extractor finds them, with every
   * parser's markers, in one shared pass over the text (the `scan` handed to `detect` and `parse`).
   */
  readonly needles?: readonly string[];
  /** `scan`, when given, is the shared pre-scan of `text`; a parser called on its own makes one. */
  detect(text: string, scan?: TextScan): boolean;
  parse(text: string, toolDefs: readonly ToolDefinition[], scan?: TextScan): LocatedToolCall[];
}
