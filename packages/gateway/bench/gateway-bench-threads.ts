// What a proxy process's CPU time is made of, by thread, for the gateway benchmark: its main thread (the event loop:
// the proxy's own work and the system calls it makes) against V8's helper threads (concurrent compilation of code
// that tiers up, and the collector's parallel and concurrent work), and how often the main thread went to sleep (a
// voluntary context switch: one wake-up each). At one stream every chunk wakes the process once, so a figure per
// token that grows without more wake-ups is work per chunk, and one that sits in the helpers is the JIT or the GC.
// Linux only (read from /proc); elsewhere undefined.
import { readdirSync, readFileSync } from 'node:fs';

export interface ThreadTimes {
  /** CPU time of the main thread, µs. */
  main: number;
  /** CPU time of V8's worker threads (compilation, garbage collection), µs. */
  helpers: number;
  /** CPU time of every other thread (libuv's pool, Node's own), µs. */
  other: number;
  /** The main thread's voluntary context switches (each one a sleep, then a wake-up). */
  mainSleeps: number;
}

export function threadTimes(): ThreadTimes | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return undefined;
  }
  const times: ThreadTimes = { main: 0, helpers: 0, other: 0, mainSleeps: 0 };
  for (const task of tasks) {
    try {
      const directory = `/proc/self/task/${task}`;
      // The first field of schedstat: time spent on the CPU, in nanoseconds (finer than stat's clock ticks).
      const us = Number(readFileSync(`${directory}/schedstat`, 'utf8').split(' ')[0]) / 1000;
      if (Number(task) === process.pid) {
        times.main += us;
        const status = readFileSync(`${directory}/status`, 'utf8');
        times.mainSleeps += Number(/\nvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
      } else if (readFileSync(`${directory}/comm`, 'utf8').startsWith('V8')) times.helpers += us;
      else times.other += us;
    } catch {
      // The thread ended between the listing and the read: its time is gone from both looks.
    }
  }
  return times;
}

/** `sum` plus what a proxy's threads did between two looks; undefined once a look had none. */
export function addThreadTimes(
  sum: ThreadTimes | undefined,
  before: ThreadTimes | undefined,
  after: ThreadTimes | undefined,
): ThreadTimes | undefined {
  if (sum === undefined || before === undefined || after === undefined) return undefined;
  return {
    main: sum.main + after.main - before.main,
    helpers: sum.helpers + after.helpers - before.helpers,
    other: sum.other + after.other - before.other,
    mainSleeps: sum.mainSleeps + after.mainSleeps - before.mainSleeps,
  };
}

/** One row of the thread table: a load's label, a path, and what its proxy's threads did over its chunks. */
export interface ThreadRow {
  readonly load: string;
  readonly path: string;
  readonly threads: ThreadTimes | undefined;
  readonly chunks: number;
}

/** The table of CPU per token by thread (nothing where no proxy had /proc). */
export function threadTable(rows: readonly ThreadRow[]): string {
  const known = rows.filter((row) => row.threads !== undefined && row.chunks > 0);
  if (known.length === 0) return '';
  const lines = [
    '| load | path | main thread CPU per token (µs) | V8 helper threads CPU per token (µs) | other threads (µs) | main-thread sleeps per token |',
    '|---|---|---|---|---|---|',
  ];
  for (const { load, path, threads, chunks } of known) {
    const times = threads as ThreadTimes;
    const per = (value: number, digits = 1): string => (value / chunks).toFixed(digits);
    lines.push(
      `| ${load} | ${path} | ${per(times.main)} | ${per(times.helpers)} | ${per(times.other)} | ${per(times.mainSleeps, 2)} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
