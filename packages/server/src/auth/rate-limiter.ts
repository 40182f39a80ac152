/** Options for {@link RateLimiter}. */
export interface RateLimiterOptions {
  /** Requests allowed per minute and key (the bucket refills continuously). */
  readonly perMinute: number;
  readonly now?: () => number;
}

/**
 * A token bucket per key (a user id): `take` answers how many seconds to wait when the bucket is empty. In memory,
 * for one process; a scaled-out deployment swaps it for a shared store.
 */
export class RateLimiter {
  readonly #capacity: number;
  readonly #refillPerMs: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(options: RateLimiterOptions) {
    this.#capacity = Math.max(1, options.perMinute);
    this.#refillPerMs = this.#capacity / 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** Takes one token; undefined when allowed, else the seconds until one is available. */
  take(key: string): number | undefined {
    const now = this.#now();
    const bucket = this.#buckets.get(key) ?? { tokens: this.#capacity, at: now };
    bucket.tokens = Math.min(this.#capacity, bucket.tokens + (now - bucket.at) * this.#refillPerMs);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.#refillPerMs / 1000));
  }
}
