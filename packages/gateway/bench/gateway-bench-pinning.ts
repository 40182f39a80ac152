// GATEWAY_BENCH_PIN=1: each proxy under test on a core of its own (the machine's last), the upstream and the client
// on the others. In a deployment the model server runs on its own machine (a GPU box) and the clients on theirs, so
// the proxy does not share a core with either; on a 2-core bench machine without pinning, a chunk's p99 measures
// how often the scheduler runs the upstream or the client on the proxy's core at the wrong moment (HAProxy's own
// added p99 moved between 0.07 and 1.5 ms from run to run). Every proxy (the pass-through, HAProxy, the gateway)
// is pinned alike, and the direct path runs where it always did, so the comparison stays side by side.
// Not with a real-time policy (`chrt -f`): a proxy's V8 helper threads share its core, and its main thread spinning
// while it waits for them never yields to them (a pass-through held its core for ten minutes, 2026-12-06).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

const cores = availableParallelism();

/** Whether pinning was asked for, and the machine has a core to give the proxies. */
export const pinned = process.env.GATEWAY_BENCH_PIN === '1' && cores >= 2;
if (pinned && schedulingPolicy() !== 'normal (CFS)')
  throw new Error(
    'GATEWAY_BENCH_PIN=1 under a real-time policy (chrt) can starve a proxy on its core: use one or the other.',
  );

/** The core the proxies get, and the list of the others (`taskset` syntax). */
const proxyCore = String(cores - 1);
const otherCores = cores === 2 ? '0' : `0-${cores - 2}`;

/** Pins every thread of process `pid` (V8's helper threads too) to the proxies' core, or to the others. */
export function pin(pid: number | undefined, where: 'proxy' | 'rest'): void {
  if (!pinned || pid === undefined) return;
  execFileSync('taskset', ['-a', '-cp', where === 'proxy' ? proxyCore : otherCores, String(pid)], {
    stdio: 'ignore',
  });
}

/** How the bench's processes were placed, for its header. */
export function placement(): string {
  return pinned
    ? `pinned: each proxy on core ${proxyCore}, the upstream and the client on ${otherCores}`
    : 'not pinned (GATEWAY_BENCH_PIN=1 gives the proxies a core of their own)';
}

// Whether the bench ran under a real-time policy (e.g. `chrt -f 50`, where the machine has it): then other
// processes' load cannot delay its processes, and the figures measure the proxies rather than the machine's queue.
export function schedulingPolicy(): string {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const policy = Number(fields[38]);
    return policy === 1 ? 'SCHED_FIFO' : policy === 2 ? 'SCHED_RR' : 'normal (CFS)';
  } catch {
    return 'unknown';
  }
}
