import { setTimeout as delay } from 'node:timers/promises';
import { omitUndefined, ToolbusError } from '@toolbus/spec';

/** How long a turn's writes are retried while storage does not answer (default 30 s). */
export const DEFAULT_STORAGE_RETRY_MS = 30_000;

/** How long a turn that storage failed keeps trying to write its end, once storage is back (default 10 min). */
export const DEFAULT_STORAGE_CLOSE_RETRY_MS = 10 * 60_000;

/**
 * Whether a storage failure may pass if tried again: anything but a typed refusal (a turn that does not exist, a
 * conflict, bad input). A lost connection (PostgreSQL restarting, `57P01`, `ECONNREFUSED`) is no ToolbusError.
 */
export function isTransientStorageFailure(error: unknown): boolean {
  if (!ToolbusError.isInstance(error)) return true;
  return error.code === 'unreachable';
}

/**
 * Runs `attempt` until it succeeds, retrying transient failures with a growing pause (100 ms doubling, at most
 * 2 s) until `windowMs` after the first failure or until `signal` aborts; then the last failure is thrown.
 * `onRetry` is told of each failure that will be retried.
 */
export async function retryStorage<T>(
  attempt: () => Promise<T>,
  options: {
    readonly windowMs: number;
    readonly signal?: AbortSignal;
    readonly onRetry?: (error: unknown, attempt: number) => void;
  },
): Promise<T> {
  let deadline: number | undefined;
  for (let count = 1; ; count += 1) {
    try {
      return await attempt();
    } catch (error) {
      deadline ??= Date.now() + options.windowMs;
      if (!isTransientStorageFailure(error) || Date.now() >= deadline || options.signal?.aborted) throw error;
      options.onRetry?.(error, count);
      const ms = Math.min(2_000, 100 * 2 ** (count - 1), Math.max(0, deadline - Date.now()));
      await delay(ms, undefined, omitUndefined({ signal: options.signal })).catch(() => undefined);
    }
  }
}
