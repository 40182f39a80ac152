/** How long {@link withinDeadline} waits, and the error it fails with when the wait runs out. */
export interface DeadlineOptions {
  readonly timeoutMs: number;
  /** Builds the error to reject with once `timeoutMs` has passed (called at most once, and only then). */
  readonly onTimeout: () => Error;
}

/**
 * `work`'s outcome, or `onTimeout()`'s error when `work` has not settled within `timeoutMs`. The timer is cleared
 * as soon as either side wins, so a settled wait keeps no timer (and no process) alive. `work` itself is not
 * cancelled: a caller that can stop it (a signal, a socket) does so after the timeout error.
 */
export async function withinDeadline<T>(work: Promise<T>, options: DeadlineOptions): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(options.onTimeout()), options.timeoutMs);
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
