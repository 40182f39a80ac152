import type { Placement } from './placement.ts';

/** A parsed tool call, ready to run: what the runner receives from the model step or from recovery. */
export interface ToolCall {
  /** The id the model (or the recovery step) gave the call; every id gets exactly one result. */
  readonly id: string;
  /** The LLM-facing tool name. */
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly placement: Placement;
}

/** The form a call takes in conversation history (`{name, arguments}`). */
export interface ToolCallHistoryForm {
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** Serialises a call to the history's `{name, arguments}` form. */
export function toolCallToHistoryForm(call: ToolCall): ToolCallHistoryForm {
  return { name: call.name, arguments: call.arguments };
}

/** The history form as a JSON string, for histories that keep tool calls as message text. */
export function toolCallToMessageString(call: ToolCall): string {
  return JSON.stringify(toolCallToHistoryForm(call));
}
