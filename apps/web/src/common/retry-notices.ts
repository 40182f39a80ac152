import type { TransientFailure } from './transient-failure.ts';

/** A read that is waiting to try again: what happened, and when the next try starts (epoch ms). */
export interface RetryNotice {
  readonly words: string;
  readonly retryAt: number;
}

// The page's reads that are waiting right now (one entry per read), shown by one banner: the page says once that
// the server asked it to slow down, not once per panel.
const waiting = new Map<symbol, RetryNotice>();
const listeners = new Set<() => void>();
let current: RetryNotice | undefined;

function changed() {
  let latest: RetryNotice | undefined;
  for (const notice of waiting.values()) if (!latest || notice.retryAt > latest.retryAt) latest = notice;
  current = latest;
  for (const listener of listeners) listener();
}

/** Marks the read `id` as waiting after `failure`, or (undefined) as no longer waiting. */
export function reportRetry(id: symbol, failure: TransientFailure | undefined): void {
  if (failure) waiting.set(id, { words: failure.words, retryAt: Date.now() + failure.waitMs });
  else if (!waiting.delete(id)) return;
  changed();
}

/** For `useSyncExternalStore`: the latest waiting read's notice. */
export function subscribeRetryNotices(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function currentRetryNotice(): RetryNotice | undefined {
  return current;
}
