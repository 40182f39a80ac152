// The page's main-thread tasks as Chromium's own trace records them, with the CPU time of each (`tdur`): on a busy
// machine a task's wall time (what the page's long-task observer reports) is stretched by whatever else runs, its
// CPU time is not, so the two side by side tell the page's own cost from the machine's load.
import type { CDPSession } from 'playwright-core';

interface TraceEvent {
  readonly name: string;
  readonly ph: string;
  readonly pid: number;
  readonly tid: number;
  readonly dur?: number;
  readonly tdur?: number;
  readonly args?: { readonly name?: string };
}

/** The renderer's main-thread tasks over a stretch of time: the longest and the total above 50 ms, in CPU time. */
export interface MainThreadCpu {
  readonly longestMs: number;
  readonly over50: number;
  readonly totalMs: number;
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
      const byThread = new Map<string, number[]>();
      for (const event of events) {
        const thread = `${event.pid}:${event.tid}`;
        if (event.ph !== 'X' || event.name !== 'RunTask' || !mains.has(thread)) continue;
        byThread.set(thread, [...(byThread.get(thread) ?? []), (event.tdur ?? 0) / 1000]);
      }
      const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
      const tasks = [...byThread.values()].sort((a, b) => sum(b) - sum(a))[0] ?? [];
      const long = tasks.filter((ms) => ms > 50);
      return { longestMs: Math.max(0, ...tasks), over50: long.length, totalMs: sum(long) };
    },
  };
}
