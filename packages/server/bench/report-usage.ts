// What each process of the server bench prints every 100 ms on stdout, one JSON line: its memory and the CPU time
// it has used, so the bench can tell what each process costs the shared cores.

/** One usage line. */
export interface Usage {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly cpuMicros: number;
}

/** Prints this process's {@link Usage} every 100 ms (the timer does not keep the process alive). */
export function reportUsage(): void {
  setInterval(() => {
    const memory = process.memoryUsage();
    const cpu = process.cpuUsage();
    const usage: Usage = {
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      external: memory.external,
      cpuMicros: cpu.user + cpu.system,
    };
    process.stdout.write(`${JSON.stringify(usage)}\n`);
  }, 100).unref();
}
