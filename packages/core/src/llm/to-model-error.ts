import type { LanguageModelV4 } from '@ai-sdk/provider';
import { APICallError } from '@ai-sdk/provider';
import { omitUndefined, type ToolbusError } from '@toolbus/spec';
import { createModelUnavailableError } from './create-model-unavailable-error.ts';
import { modelEndpointOf } from './model-endpoint-registry.ts';
import { ModelRequestError, ModelStreamError } from './model-errors.ts';

// Error types Anthropic sends inside a stream that are worth another attempt.
const retryableStreamErrorTypes = new Set(['overloaded_error', 'api_error', 'rate_limit_error']);

/**
 * Maps what a provider package threw or put in an `error` part to a toolbus error, and says whether another
 * attempt could succeed. Only the status, the provider's error message and the endpoint's origin are kept in the
 * message (never the request body or headers).
 */
export function toModelError(options: { error: unknown; model: LanguageModelV4 }): {
  error: ToolbusError;
  retryable: boolean;
} {
  const { error, model } = options;
  if (APICallError.isInstance(error)) {
    if (error.statusCode === undefined) {
      return {
        error: createModelUnavailableError({
          url: error.url,
          endpoint: modelEndpointOf(model),
          cause: error,
        }),
        retryable: error.isRetryable,
      };
    }
    if (error.statusCode >= 200 && error.statusCode < 300) {
      // The request succeeded and the body broke later (a dropped connection while streaming). The provider's own
      // words ("Failed to process successful response") say nothing of why; fetch's cause says the connection closed.
      const closed = connectionClosedCause(error.cause);
      return {
        error: new ModelStreamError({
          message: `the model stream broke: ${closed === undefined ? error.message : `the connection closed before the answer ended (${closed})`}`,
          ...omitUndefined({ connectionClosed: closed }),
          retryable: error.isRetryable,
          cause: error,
        }),
        retryable: error.isRetryable,
      };
    }
    return {
      error: new ModelRequestError({
        message: `${model.provider} answered HTTP ${error.statusCode}: ${error.message}`,
        statusCode: error.statusCode,
        retryable: error.isRetryable,
        cause: error,
      }),
      retryable: error.isRetryable,
    };
  }
  if (isProviderErrorObject(error)) {
    const retryable = retryableStreamErrorTypes.has(error.type);
    return {
      error: new ModelStreamError({
        message: `${model.provider} stream error (${error.type}): ${error.message}`,
        retryable,
        cause: error,
      }),
      retryable,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  // A TypeError from fetch's body ("terminated") is a dropped connection; anything else is unreadable data.
  const retryable = error instanceof TypeError;
  return {
    error: new ModelStreamError({ message: `the model stream broke: ${message}`, retryable, cause: error }),
    retryable,
  };
}

/**
 * Why fetch stopped reading a body, when it was the connection (a `TypeError`, "terminated", with the socket's reason
 * as its cause: "other side closed"); undefined for anything else.
 */
function connectionClosedCause(cause: unknown): string | undefined {
  if (!(cause instanceof TypeError)) return undefined;
  const reason = cause.cause instanceof Error ? cause.cause.message : undefined;
  return reason ? `${cause.message}: ${reason}` : cause.message;
}

function isProviderErrorObject(error: unknown): error is { type: string; message: string } {
  return (
    typeof error === 'object' &&
    error !== null &&
    !(error instanceof Error) &&
    typeof (error as { type?: unknown }).type === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}
