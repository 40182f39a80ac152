import { ToolbusError } from '@toolbus/spec';

/** What the deadline timer needs of a running call. */
export interface DeadlineEntry {
  readonly deadline: number;
  readonly call: { readonly name: string };
  abort(reason: unknown): void;
}

/**
 * One timer for all running calls instead of one per call: it fires at the earliest deadline, stops what
 * expired, and re-arms for the next. Calls that finish first cost nothing.
 */
export function createDeadlineTimer(running: ReadonlySet<DeadlineEntry>) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let armedFor = Number.POSITIVE_INFINITY;
  const arm = (deadline: number) => {
    if (timer !== undefined && deadline >= armedFor) return;
    if (timer !== undefined) clearTimeout(timer);
    armedFor = deadline;
    timer = setTimeout(fire, Math.max(0, deadline - performance.now()));
  };
  const fire = () => {
    timer = undefined;
    armedFor = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let nextDeadline = Number.POSITIVE_INFINITY;
    for (const entry of [...running]) {
      if (entry.deadline <= now + 1) {
        entry.abort(
          new ToolbusError({ code: 'tool_timeout', message: `Tool "${entry.call.name}" timed out.` }),
        );
      } else if (entry.deadline < nextDeadline) {
        nextDeadline = entry.deadline;
      }
    }
    if (nextDeadline !== Number.POSITIVE_INFINITY) arm(nextDeadline);
  };
  return {
    track(entry: DeadlineEntry) {
      arm(entry.deadline);
    },
    stop() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
