/**
 * The per-user allowance of requests per minute: a token bucket per key (a user id) holding up to `perMinute`
 * requests and refilling continuously. A shared implementation counts every replica's requests against one
 * bucket, so a user gets one allowance per deployment, not one per replica.
 */
export interface RequestRateLimit {
  /** Takes one request from `key`'s bucket; undefined when allowed, else the seconds until one is available. */
  take(key: string, perMinute: number): Promise<number | undefined>;
}

/** The buckets of this process only (one replica's allowance). */
export class InProcessRequestRateLimit implements RequestRateLimit {
  readonly #now: () => number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(options: { readonly now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async take(key: string, perMinute: number): Promise<number | undefined> {
    const capacity = Math.max(1, perMinute);
    const refillPerMs = capacity / 60_000;
    const now = this.#now();
    const bucket = this.#buckets.get(key) ?? { tokens: capacity, at: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.at) * refillPerMs);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / refillPerMs / 1000));
  }
}
