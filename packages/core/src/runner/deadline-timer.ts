/** What the deadline timer needs of a running call. */
export interface DeadlineEntry {
  /** `performance.now()` time at which the call times out; `Infinity` (or NaN) for never. */
  readonly deadline: number;
  timeOut(): void;
}

/**
 * The longest delay `setTimeout` takes (2^31 - 1 ms, about 24.8 days). A longer one is not honoured: Node fires
 * it after 1 ms instead, which would re-arm and fire again every millisecond until the call ended.
 */
const maxTimerDelayMs = 2 ** 31 - 1;

/**
 * One timer for all running calls instead of one per call: it fires at the earliest deadline, stops what
 * expired, and re-arms for the next. Calls that finish first cost nothing. A deadline beyond the timer's
 * maximum is waited for in steps of at most that maximum; a deadline of `Infinity` arms nothing.
 */
export function createDeadlineTimer(running: ReadonlySet<DeadlineEntry>) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let armedFor = Number.POSITIVE_INFINITY;
  const arm = (deadline: number) => {
    if (!Number.isFinite(deadline)) return;
    if (timer !== undefined && deadline >= armedFor) return;
    if (timer !== undefined) clearTimeout(timer);
    armedFor = deadline;
    timer = setTimeout(fire, Math.min(maxTimerDelayMs, Math.max(0, deadline - performance.now())));
  };
  const fire = () => {
    timer = undefined;
    armedFor = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let nextDeadline = Number.POSITIVE_INFINITY;
    for (const entry of [...running]) {
      if (entry.deadline <= now + 1) entry.timeOut();
      else if (entry.deadline < nextDeadline) nextDeadline = entry.deadline;
    }
    arm(nextDeadline);
  };
  return {
    track(entry: DeadlineEntry) {
      arm(entry.deadline);
    },
    stop() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      armedFor = Number.POSITIVE_INFINITY;
    },
  };
}
