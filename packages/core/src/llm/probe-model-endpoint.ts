import type { FetchFunction } from '@toolbus/spec';
import { createModelUnavailableError } from './create-model-unavailable-error.ts';
import type { ModelConfig } from './model-config.ts';
import type { ModelEndpoint, ModelEnvironment } from './resolve-model-endpoint.ts';
import { resolveModelEndpoint } from './resolve-model-endpoint.ts';

/** Options for {@link probeModelEndpoint}. */
export interface ProbeModelEndpointOptions {
  /** Model string or config; undefined means the configured default (see `resolveModelEndpoint`). */
  readonly model?: string | ModelConfig;
  readonly env?: ModelEnvironment;
  readonly fetch?: FetchFunction;
  /** How long to wait for any HTTP answer. Default 3000 ms. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** What a successful probe found. */
export interface ModelEndpointProbe {
  readonly endpoint: ModelEndpoint;
  /** HTTP status of `GET <baseUrl>/models` (any status proves something answers; 401 means a key is wanted). */
  readonly status: number;
}

/**
 * A quick reachability check before a turn: `GET <baseUrl>/models`, without credentials. Any HTTP answer counts
 * as reachable; a refused connection, a DNS failure or the timeout throws `ModelUnavailableError` with a message
 * that says what to do ("no model answers at http://localhost:11434 — set TOOLBUS_MODEL or start Ollama").
 */
export async function probeModelEndpoint(
  options: ProbeModelEndpointOptions = {},
): Promise<ModelEndpointProbe> {
  const env = options.env ?? (globalThis as { process?: { env?: ModelEnvironment } }).process?.env ?? {};
  const endpoint = resolveModelEndpoint(options.model, env);
  const fetch = options.fetch ?? globalThis.fetch;
  const url = `${endpoint.baseUrl}/models`;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 3000);
  const signal = options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]);
  let response: Response;
  try {
    response = await fetch(url, { method: 'GET', signal, redirect: 'manual' });
  } catch (cause) {
    if (options.signal?.aborted === true) throw options.signal.reason;
    throw createModelUnavailableError({ url, endpoint, cause });
  }
  // Only the status matters; release the connection.
  await response.body?.cancel().catch(() => undefined);
  return { endpoint, status: response.status };
}
