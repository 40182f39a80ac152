import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How often the server looks whether it is at rest. */
const CHECK_EVERY_MS = 5_000;

/** How much the heap must have grown since the last release before a rest releases it again. */
const GROWN_BYTES = 4 * 2 ** 20;

/** What {@link releaseMemoryAtRest} watches and does. */
export interface ReleaseMemoryAtRestOptions {
  /** Whether the server has work in hand (turns running): it is not at rest then. */
  readonly busy: () => boolean;
  /** Gives the heap's unused memory back to the system (default: V8's last-resort collection, see below). */
  readonly release?: () => void;
  /** The heap's size now, in bytes (default: V8's total heap size). */
  readonly heapBytes?: () => number;
  /** Default 5 s; 0 starts no timer (the caller calls `check`). */
  readonly checkEveryMs?: number;
}

/** The watcher: `check` is what its timer runs; `stop` ends it. */
export interface MemoryAtRest {
  /** Looks once; true when it released memory. */
  check(): boolean;
  stop(): void;
}

/**
 * Gives memory back once the server is at rest. V8 grows its young generation under load (to 64–128 MiB with two
 * hundred streams: many objects live across a scavenge) and keeps the pages it swept: an idle server that served
 * a burst held 260–330 MiB, and one that only started held 137 MiB (the AI SDK server 99), because collections,
 * and the memory reducer that follows them, run only when something allocates. When two looks in a row (5 s
 * apart) find no turn running and the heap grew since the last release, one last-resort collection shrinks the
 * young generation and returns the freed pages (137 → 106 MiB for a server that only started). It runs once per
 * rest, never under load; its pause (tens of milliseconds to 0.2 s) falls on a server with no turn running.
 */
export function releaseMemoryAtRest(options: ReleaseMemoryAtRestOptions): MemoryAtRest {
  const release = options.release ?? collectAllGarbage;
  const heapBytes = options.heapBytes ?? (() => getHeapStatistics().total_heap_size);
  let quietBefore = false;
  let afterRelease = 0;
  const check = () => {
    if (options.busy()) {
      quietBefore = false;
      return false;
    }
    const quiet = quietBefore;
    quietBefore = true;
    if (!quiet || heapBytes() < afterRelease + GROWN_BYTES) return false;
    release();
    afterRelease = heapBytes();
    return true;
  };
  const everyMs = options.checkEveryMs ?? CHECK_EVERY_MS;
  const timer = everyMs > 0 ? setInterval(check, everyMs) : undefined;
  timer?.unref();
  return { check, stop: () => clearInterval(timer) };
}

let collect: ((options: object) => void) | undefined;

/**
 * V8's last-resort collection (what it runs before giving up on an allocation): every generation collected, the
 * young generation shrunk, freed pages unmapped. Node has no API for it besides `gc`, which V8 installs in a new
 * context once `--expose-gc` is set (the main context's global stays without it): one context, made at the first
 * release.
 */
function collectAllGarbage(): void {
  if (collect === undefined) {
    // A process started with --expose-gc has it already (and then no context is made for it).
    const exposed = (globalThis as { gc?: (options: object) => void }).gc;
    if (exposed === undefined) setFlagsFromString('--expose-gc');
    collect = exposed ?? (runInNewContext('gc') as (options: object) => void);
  }
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
