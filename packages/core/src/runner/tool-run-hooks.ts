import type { Tool, ToolCall, ToolCallStatus, ToolResponse } from '@toolbus/spec';

/** How one call ended (the contract's type: a `tool-end` packet carries it too). */
export type { ToolCallStatus } from '@toolbus/spec';

/** What a span learns when its call ends. */
export interface ToolCallSpanEnd {
  readonly status: ToolCallStatus;
  readonly response: ToolResponse;
  /** What was thrown, for failures (full detail: traces may keep what the model never sees). */
  readonly error?: unknown;
  readonly durationMs: number;
}

/** A tracing span for one call; `end` is called exactly once. */
export interface ToolCallSpan {
  end(result: ToolCallSpanEnd): void;
}

/**
 * Tracing hooks, so any tracer (OpenTelemetry, Langfuse, logs) can observe each call without the core depending
 * on one. A throwing hook is ignored: tracing never fails a turn.
 */
export interface ToolRunHooks {
  onToolCallStart?(event: { readonly call: ToolCall; readonly tool: Tool }): ToolCallSpan | undefined;
}
