// The page's main-thread tasks as Chromium's own trace records them, with the CPU time of each (`tdur`): on a busy
// machine a task's wall time (what the page's long-task observer reports) is stretched by whatever else runs, its
// CPU time is not, so the two side by side tell the page's own cost from the machine's load.
import type { CDPSession } from 'playwright-core';

interface TraceEvent {
  readonly name: string;
  readonly ph: string;
  readonly pid: number;
  readonly tid: number;
  readonly ts: number;
  readonly dur?: number;
  readonly tdur?: number;
  readonly args?: { readonly name?: string };
}

/** The renderer's main-thread tasks over a stretch of time: the longest and the total above 50 ms, in CPU time. */
export interface MainThreadCpu {
  readonly longestMs: number;
  readonly over50: number;
  readonly totalMs: number;
  /** What the longest task spent most of its CPU time in (its biggest traced step: rendering, a script, …). */
  readonly longestCause: string;
}

/** Starts a trace; `stop` ends it and answers the busiest renderer main thread's task CPU times. */
export async function traceMainThread(cdp: CDPSession): Promise<{ stop: () => Promise<MainThreadCpu> }> {
  const events: TraceEvent[] = [];
  const onData = (data: { value: TraceEvent[] }) => events.push(...data.value);
  // biome-ignore lint/suspicious/noExplicitAny: the Tracing domain's events are not in playwright-core's types
  const session = cdp as any;
  session.on('Tracing.dataCollected', onData);
  await session.send('Tracing.start', {
    categories: 'devtools.timeline,disabled-by-default-devtools.timeline',
    transferMode: 'ReportEvents',
  });
  return {
    async stop() {
      const complete = new Promise((resolve) => session.once('Tracing.tracingComplete', resolve));
      await session.send('Tracing.end');
      await complete;
      session.off('Tracing.dataCollected', onData);
      // Pages' renderers only (the browser's own WebUI renderer is another "CrRendererMain").
      const renderers = new Set(
        events
          .filter(
            (event) => event.ph === 'M' && event.name === 'process_name' && event.args?.name === 'Renderer',
          )
          .map((event) => event.pid),
      );
      const mains = new Set(
        events
          .filter(
            (event) =>
              event.ph === 'M' &&
              event.name === 'thread_name' &&
              event.args?.name === 'CrRendererMain' &&
              renderers.has(event.pid),
          )
          .map((event) => `${event.pid}:${event.tid}`),
      );
      const byThread = new Map<string, TraceEvent[]>();
      for (const event of events) {
        const thread = `${event.pid}:${event.tid}`;
        if (event.ph !== 'X' || !mains.has(thread)) continue;
        const list = byThread.get(thread) ?? [];
        list.push(event);
        byThread.set(thread, list);
      }
      const cpu = (event: TraceEvent) => (event.tdur ?? 0) / 1000;
      const tasksOf = (list: TraceEvent[]) => list.filter((event) => event.name === 'RunTask');
      const sum = (list: TraceEvent[]) => list.reduce((total, event) => total + cpu(event), 0);
      const thread = [...byThread.values()].sort((a, b) => sum(tasksOf(b)) - sum(tasksOf(a)))[0] ?? [];
      const tasks = tasksOf(thread);
      const long = tasks.filter((task) => cpu(task) > 50);
      const longest = tasks.reduce<TraceEvent | undefined>(
        (top, task) => (top && cpu(top) >= cpu(task) ? top : task),
        undefined,
      );
      let cause = '';
      if (longest) {
        const end = longest.ts + (longest.dur ?? 0);
        const inside = thread.filter(
          (event) =>
            event !== longest && event.name !== 'RunTask' && event.ts >= longest.ts && event.ts < end,
        );
        // The two biggest steps by name (a GC inside a task says what it cost, not what the task was).
        const names = [...new Set(inside.sort((a, b) => cpu(b) - cpu(a)).map((event) => event.name))];
        const first = thread.reduce((earliest, event) => Math.min(earliest, event.ts), longest.ts);
        cause = `${names.slice(0, 2).join(', ')}; at ${((longest.ts - first) / 1e6).toFixed(1)} s`;
      }
      return {
        longestMs: longest ? cpu(longest) : 0,
        over50: long.length,
        totalMs: sum(long),
        longestCause: cause,
      };
    },
  };
}
