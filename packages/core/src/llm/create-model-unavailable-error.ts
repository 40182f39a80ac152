import { ModelUnavailableError } from './model-errors.ts';
import type { ModelEndpoint } from './resolve-model-endpoint.ts';

/**
 * The actionable error for "nothing listens there": `no model answers at http://localhost:11434 — set
 * TOOLBUS_MODEL or start Ollama`. Only the origin is shown (no path, no query, never a key).
 */
export function createModelUnavailableError(options: {
  url: string;
  endpoint: ModelEndpoint | undefined;
  cause?: unknown;
}): ModelUnavailableError {
  let origin = options.url;
  try {
    origin = new URL(options.url).origin;
  } catch {
    // Not a URL: keep what we have, it came from our own configuration.
  }
  const hint =
    options.endpoint?.unavailableHint ?? 'check that the model server is running and TOOLBUS_MODEL';
  return new ModelUnavailableError({
    message: `no model answers at ${origin} — ${hint}`,
    endpoint: origin,
    cause: options.cause,
  });
}
