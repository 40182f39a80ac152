import type { EgressLogger } from '../decision/egress-logger.ts';
import type { EgressIdentity } from '../decision/egress-request.ts';
import { createBackoff, type IdentitySource } from './identity-source.ts';

/** What a source's connection reports to the life cycle it runs in. */
export interface IdentitySync {
  /** The source holds every sandbox now: traffic is served, the backoff starts over, the first sync resolves. */
  markSynced(): void;
  /** Whether the source has ever synced (a conflict at the first sync is fatal, later it is not). */
  everSynced(): boolean;
  /** The next reconnect delay (and moves the backoff on). */
  nextDelay(): number;
}

/** What to do after a connection failed: `retry` at once, or `fail` the source for good (its first sync rejects). */
export type IdentityFailure = 'retry' | 'fail' | undefined;

/**
 * The life cycle every identity source shares, so each source only says how it connects: `start` runs
 * `connect` in a loop; whenever a connection ends `synced` is false until the next one calls `markSynced`; a
 * failure waits the backoff (logged as `identity_disconnected`) unless `onFailure` says otherwise; `stop` aborts
 * the connection in flight. `lookup` is asked only while synced, with the address as IPv4 when it was mapped.
 */
export function identitySourceLifecycle(options: {
  readonly source: 'docker' | 'kubernetes';
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  readonly logger?: EgressLogger;
  readonly connect: (sync: IdentitySync, signal: AbortSignal) => Promise<void>;
  readonly onFailure?: (error: unknown, sync: IdentitySync) => Promise<IdentityFailure>;
  readonly lookup: (address: string) => EgressIdentity | undefined;
}): IdentitySource {
  const backoff = createBackoff(options.backoff?.initialMs, options.backoff?.maxMs);
  const log = options.logger ?? (() => {});
  let synced = false;
  let everSynced = false;
  let stopped = false;
  let controller: AbortController | undefined;
  let resolveFirst: () => void = () => {};
  let rejectFirst: (error: unknown) => void = () => {};
  const firstSync = new Promise<void>((resolve, reject) => {
    resolveFirst = resolve;
    rejectFirst = reject;
  });
  firstSync.catch(() => {});
  const sync: IdentitySync = {
    markSynced() {
      synced = true;
      backoff.reset();
      if (!everSynced) {
        everSynced = true;
        resolveFirst();
      }
    },
    everSynced: () => everSynced,
    nextDelay: () => backoff.next(),
  };

  async function loop(): Promise<void> {
    while (!stopped) {
      controller = new AbortController();
      try {
        await options.connect(sync, controller.signal);
        // The connection ended cleanly (a server-side timeout): reconnect at once, briefly unsynced.
        synced = false;
      } catch (error) {
        synced = false;
        if (stopped) return;
        const next = await options.onFailure?.(error, sync);
        if (next === 'fail') {
          rejectFirst(error);
          return;
        }
        if (next === 'retry') continue;
        const delay = backoff.next();
        log('identity_disconnected', [
          ['source', options.source],
          ['retry_ms', delay],
        ]);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  return {
    identify: (address) => (synced ? options.lookup(address.replace(/^::ffff:/, '')) : undefined),
    synced: () => synced,
    start() {
      stopped = false;
      void loop();
    },
    stop() {
      stopped = true;
      synced = false;
      controller?.abort();
    },
    firstSync,
  };
}
