import { sleepUnlessAborted, ToolbusClientError } from '@toolbus/client';
import { reportRetry } from './retry-notices.ts';

/** A failure that may pass by itself: what happened in words, and how long to wait before trying again. */
export interface TransientFailure {
  /** What happened, as a person reads it (no status codes). */
  readonly words: string;
  /** How long to wait before the next try: the server's `Retry-After` when it sent one, else the back-off. */
  readonly waitMs: number;
}

/** Statuses that say "not now" rather than "no": the request itself was fine. */
const transientStatuses = new Set([408, 429, 502, 503, 504]);

/** Back-off of automatic retries without a `Retry-After`: 1 s doubling, at most 30 s. */
export function backoffMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));
}

function seconds(ms: number): string {
  const whole = Math.max(1, Math.ceil(ms / 1000));
  return whole === 1 ? '1 second' : `${whole} seconds`;
}

/**
 * Whether `error` is transient (too many requests, a gateway or the server briefly unavailable, the network lost),
 * and if so its words and wait; undefined for a refusal that trying again cannot change (a 400, 403, 404…).
 * `attempt` (1 for the first failure) sets the back-off when the server named no wait.
 */
export function transientFailure(error: unknown, attempt = 1): TransientFailure | undefined {
  if (!ToolbusClientError.isInstance(error)) return undefined;
  const named = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
  const waitMs = Math.min(5 * 60_000, named ?? backoffMs(attempt));
  if (error.code === 'network_error') return { words: 'The connection to the server was lost.', waitMs };
  if (error.status === undefined || !transientStatuses.has(error.status)) return undefined;
  if (error.status === 429)
    return { words: `Too many requests: the server asks you to wait ${seconds(waitMs)}.`, waitMs };
  if (error.status === 408) return { words: 'The server took too long to answer.', waitMs };
  return { words: 'The server is unavailable for a moment.', waitMs };
}

/** The most automatic tries of one read before its failure is shown for good (with a reload). */
const maxReadAttempts = 6;

/**
 * Runs a read (a GET: safe to repeat) and tries it again on a transient failure, waiting what the server asked
 * (`Retry-After`) or a growing back-off. The page's retry banner says what happened and when the next try starts.
 * Sends are never retried here: repeating one could send a message twice, so the person decides (a Retry button).
 */
export async function retryRead<T>(
  read: () => Promise<T>,
  options: { readonly signal?: AbortSignal } = {},
): Promise<T> {
  const id = Symbol('read');
  try {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await read();
      } catch (error) {
        const failure = transientFailure(error, attempt);
        if (!failure || attempt >= maxReadAttempts || options.signal?.aborted) throw error;
        reportRetry(id, failure);
        await sleepUnlessAborted(failure.waitMs, options.signal);
        if (options.signal?.aborted) throw error;
      }
    }
  } finally {
    reportRetry(id, undefined);
  }
}
