import type { ToolDefinition } from '@toolbus/spec';
import type { ToolCallTextParser } from '../recovery/extracted-tool-call.ts';
import type { ToolCallParserRegistry } from '../recovery/tool-call-parser-registry.ts';

/** Options for `AnswerStreamFilter`. */
export interface AnswerStreamFilterOptions {
  /** The tools the model was offered: only calls of these are held back and cut out. */
  readonly tools: readonly ToolDefinition[];
  /** The dialect parsers (default: all built-in ones); their markers are the markup hidden. */
  readonly parsers?: readonly ToolCallTextParser[] | ToolCallParserRegistry;
  /**
   * How many characters an answer that starts like a bare JSON call may run without naming a tool, a
   * parameter or a call key before it is released as prose (default 400).
   */
  readonly holdLimit?: number;
  /** Dialects tried first when cutting calls out (a model profile's, see `findModelProfile`). */
  readonly preferredDialects?: readonly string[];
}
