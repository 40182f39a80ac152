import type { ToolCall, ToolFailureKind, ToolResponse } from '@toolbus/spec';
import { ToolCallError, ToolExecutionError } from '@toolbus/spec';
import type { ToolCallStatus } from './tool-run-hooks.ts';

/** A failure as the model reads it, with the typed record kept for storage and the UI. */
export function failureResponse(kind: ToolFailureKind, message: string, code?: string): ToolResponse {
  return {
    llmFacing: `Tool failed with error: ${message}`,
    rich: { type: 'failure', kind, message, ...(code === undefined ? {} : { code }) },
  };
}

/** How a thrown value becomes a result: the error classes decide what the model may read. */
export interface ClassifiedFailure {
  readonly status: ToolCallStatus;
  readonly response: ToolResponse;
  /** An error packet the UI should get (ToolExecutionError with emitErrorPacket). */
  readonly errorPacket?: { readonly code: string; readonly message: string };
}

/**
 * Classifies anything a tool threw. `ToolCallError` → its model message; `ToolExecutionError` → its message (and an
 * error packet when asked); anything else, including non-Error values, → a generic message, because an
 * unexpected error's text may carry internals (paths, URLs with tokens) the model should not see.
 */
export function classifyToolFailure(call: ToolCall, thrown: unknown): ClassifiedFailure {
  if (ToolCallError.isInstance(thrown)) {
    const kind = thrown.code === 'invalid_arguments' ? 'invalid-arguments' : 'call-error';
    return { status: 'call-error', response: failureResponse(kind, thrown.modelMessage, thrown.code) };
  }
  if (ToolExecutionError.isInstance(thrown)) {
    return {
      status: 'execution-error',
      response: failureResponse('execution-error', thrown.message, thrown.code),
      ...(thrown.emitErrorPacket ? { errorPacket: { code: thrown.code, message: thrown.message } } : {}),
    };
  }
  return {
    status: 'unexpected-error',
    response: failureResponse(
      'unexpected-error',
      `"${call.name}" stopped with an unexpected internal error. Try again, or answer without this tool.`,
      'unexpected_error',
    ),
  };
}
