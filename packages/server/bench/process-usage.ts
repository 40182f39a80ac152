// CPU and memory of a process as the kernel counts them (Linux /proc): CPU includes the children it has waited for
// (the sandbox's bubblewrap, seccomp compiler and probe runs), so work a server hands to child processes is counted.
import { readFileSync } from 'node:fs';

const ticksPerSecond = 100; // USER_HZ on Linux

/** CPU time of `pid` and its reaped children, in µs. */
export function cpuMicrosWithChildren(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime, cutime, cstime are fields 14–17 (1-based), i.e. 11–14 after the name.
  const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
  return (ticks * 1_000_000) / ticksPerSecond;
}

/** Resident memory of `pid`, in bytes. */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/** Samples `pid`'s RSS every `intervalMs` until stopped; the peak seen. */
export function rssPeak(pid: number, intervalMs = 50): { stop(): number } {
  let peak = rssBytes(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssBytes(pid));
    } catch {}
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      try {
        peak = Math.max(peak, rssBytes(pid));
      } catch {}
      return peak;
    },
  };
}
