/**
 * A lock that lets one caller at a time do a thing several replicas could race on (refreshing an OAuth token:
 * two refreshes with one refresh token would invalidate each other). The lock lapses after `ttlMs`, so a dead
 * holder frees it; release is checked against the holder's token, so a holder whose lock lapsed cannot release
 * another's.
 */
export interface SingleFlightLock {
  /** Takes the lock; the token to release it with, or undefined when another holds it. */
  acquire(key: string, ttlMs: number): Promise<string | undefined>;
  /** Extends a held lock; false when the token no longer holds it. */
  extend(key: string, token: string, ttlMs: number): Promise<boolean>;
  /** Releases a held lock; false when the token no longer holds it. */
  release(key: string, token: string): Promise<boolean>;
}

/** Options for {@link singleFlight}. */
export interface SingleFlightOptions {
  readonly lock: SingleFlightLock;
  readonly key: string;
  /** How long the lock lives unless released (default 30 s). */
  readonly ttlMs?: number;
  /** How long to wait for another holder before giving up (default 30 s). */
  readonly waitMs?: number;
  /** Between two tries while another holds the lock (default 50 ms). */
  readonly pollMs?: number;
}

/** Runs `work` under the lock, waiting while another holder has it; the lock is released however `work` ends. */
export async function singleFlight<T>(options: SingleFlightOptions, work: () => Promise<T>): Promise<T> {
  const ttlMs = options.ttlMs ?? 30_000;
  const deadline = Date.now() + (options.waitMs ?? 30_000);
  for (;;) {
    const token = await options.lock.acquire(options.key, ttlMs);
    if (token !== undefined) {
      try {
        return await work();
      } finally {
        await options.lock.release(options.key, token);
      }
    }
    if (Date.now() > deadline) {
      throw new Error(`The lock ${JSON.stringify(options.key)} stayed held by another holder; try again.`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 50));
  }
}

/** A lock of this process only. */
export class InProcessSingleFlightLock implements SingleFlightLock {
  readonly #held = new Map<string, { token: string; expires: number }>();

  async acquire(key: string, ttlMs: number): Promise<string | undefined> {
    const held = this.#held.get(key);
    if (held && held.expires > Date.now()) return undefined;
    const token = crypto.randomUUID();
    this.#held.set(key, { token, expires: Date.now() + ttlMs });
    return token;
  }

  async extend(key: string, token: string, ttlMs: number): Promise<boolean> {
    const held = this.#held.get(key);
    if (!held || held.token !== token || held.expires <= Date.now()) return false;
    held.expires = Date.now() + ttlMs;
    return true;
  }

  async release(key: string, token: string): Promise<boolean> {
    const held = this.#held.get(key);
    if (!held || held.token !== token) return false;
    this.#held.delete(key);
    return held.expires > Date.now();
  }
}
