import type { ChatMessage, CitedDocument, ToolCall, ToolResponse } from '@toolbus/spec';
import type { ToolCallStatus } from './tool-run-hooks.ts';

/** How one of the model's calls was answered. */
export interface ToolCallOutcome {
  /** The call as the model produced it. */
  readonly call: ToolCall;
  /** The call that actually ran for it (a merged call carries several model calls); absent when nothing ran. */
  readonly ranAs?: ToolCall;
  readonly status: ToolCallStatus;
  readonly response: ToolResponse;
}

/** What `runToolCalls` (and `ToolCallBatch.settle`) returns. */
export interface RunToolCallsResult {
  /** One per call the model produced, in call order. */
  readonly outcomes: readonly ToolCallOutcome[];
  /** One `tool` message per call id, in call order: ready to append to history after the assistant message. */
  readonly messages: readonly ChatMessage[];
  /** The citation numbers given out to calls whose results were recorded, merged across calls. */
  readonly citations: ReadonlyMap<number, CitedDocument>;
  /** True when a tool that stops the turn (image generation) ran successfully: the loop should end. */
  readonly stopped: boolean;
}
