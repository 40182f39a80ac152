import type { ToolCall, ToolFailureKind, ToolResponse } from '@toolbus/spec';
import { omitUndefined, ToolbusError, ToolCallError, ToolExecutionError } from '@toolbus/spec';
import { GuardedFetchError } from '../net/guarded-fetch-error.ts';
import type { ToolCallStatus } from './tool-run-hooks.ts';

/** A failure as the model reads it, with the typed record kept for storage and the UI. */
export function failureResponse(kind: ToolFailureKind, message: string, code?: string): ToolResponse {
  return {
    llmFacing: `Tool failed with error: ${message}`,
    rich: { type: 'failure', kind, message, ...omitUndefined({ code }) },
  };
}

/** How a thrown value becomes a result: the error classes decide what the model may read. */
export interface ClassifiedFailure {
  readonly status: ToolCallStatus;
  readonly response: ToolResponse;
  /** An error packet the UI should get: every failure except the model's own mistakes (`ToolCallError`). */
  readonly errorPacket?: { readonly code: string; readonly message: string };
}

/** How deep the `cause` chain is searched for a cause of ours (a tool may wrap the guard's error twice). */
const maxCauseDepth = 5;

/**
 * Classifies anything a tool threw, and never throws itself, whatever was thrown (a Proxy, an object whose
 * getters throw, an error-marked object whose message is not a string): classification that fails answers the
 * call as an unexpected error at once.
 * - `ToolCallError` → its model message (the model's mistake; no error packet);
 * - `ToolExecutionError` → its message (an error packet when it asks for one);
 * - a cause of ours that is safe to show, anywhere in the `cause` chain: the outbound guard's refusal
 *   (`GuardedFetchError`, whose message names only the host and the rule), a size cap (a toolbus error whose code
 *   is `too_large` or ends in `_too_large`), a timeout (`TimeoutError`, what `AbortSignal.timeout` throws) → that
 *   cause in plain words, and an error packet;
 * - anything else → a generic message and an error packet, because an unexpected error's text may carry
 *   internals (paths, URLs with tokens) the model should not see.
 */
export function classifyToolFailure(call: ToolCall, thrown: unknown): ClassifiedFailure {
  try {
    return classify(call, thrown);
  } catch {
    return unexpectedFailure(call);
  }
}

function classify(call: ToolCall, thrown: unknown): ClassifiedFailure {
  if (ToolCallError.isInstance(thrown)) {
    const code = stringOrThrow(thrown.code);
    const kind = code === 'invalid_arguments' ? 'invalid-arguments' : 'call-error';
    return {
      status: 'call-error',
      response: failureResponse(kind, stringOrThrow(thrown.modelMessage), code),
    };
  }
  if (ToolExecutionError.isInstance(thrown)) {
    const code = stringOrThrow(thrown.code);
    const message = stringOrThrow(thrown.message);
    return {
      status: 'execution-error',
      response: failureResponse('execution-error', message, code),
      ...(thrown.emitErrorPacket === true ? { errorPacket: { code, message } } : {}),
    };
  }
  const cause = readableCause(call, thrown);
  if (cause !== undefined) {
    return {
      status: 'execution-error',
      response: failureResponse('execution-error', cause.message, cause.code),
      errorPacket: cause,
    };
  }
  return unexpectedFailure(call);
}

function readableCause(call: ToolCall, thrown: unknown): { code: string; message: string } | undefined {
  let current = thrown;
  for (let depth = 0; depth < maxCauseDepth; depth += 1) {
    if (typeof current !== 'object' || current === null) return undefined;
    if (GuardedFetchError.isInstance(current)) {
      return {
        code: stringOrThrow(current.code),
        message: `"${call.name}" was not allowed to make a request it needed. ${stringOrThrow(current.message)}.`,
      };
    }
    if (ToolbusError.isInstance(current)) {
      const code = stringOrThrow(current.code);
      if (code === 'too_large' || code.endsWith('_too_large'))
        return { code, message: stringOrThrow(current.message) };
    }
    if ((current as { name?: unknown }).name === 'TimeoutError') {
      return {
        code: 'request_timeout',
        message: `"${call.name}" stopped because a request it made timed out. Try again later, or answer without this tool.`,
      };
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function unexpectedFailure(call: ToolCall): ClassifiedFailure {
  const message = `"${call.name}" stopped with an unexpected internal error. Try again, or answer without this tool.`;
  return {
    status: 'unexpected-error',
    response: failureResponse('unexpected-error', message, 'unexpected_error'),
    errorPacket: { code: 'unexpected_error', message },
  };
}

function stringOrThrow(value: unknown): string {
  if (typeof value !== 'string') throw new TypeError('not a string');
  return value;
}
