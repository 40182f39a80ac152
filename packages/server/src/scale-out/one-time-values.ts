/**
 * Short-lived values one replica hands out under a secret key and any replica redeems once: the `state` of an
 * OAuth authorization (the browser's callback may reach another replica than the one that started it). A value
 * lapses after its lifetime; taking it removes it, so a second take finds nothing.
 */
export interface OneTimeValues {
  /** Keeps `value` under `key` for `ttlMs`. */
  put(key: string, value: string, ttlMs: number): Promise<void>;
  /** The value under `key`, removed in the same step; undefined when unknown, lapsed or taken. */
  take(key: string): Promise<string | undefined>;
}

/** Values of this process only, at most `capacity` of them (the oldest go first when full). */
export class InProcessOneTimeValues implements OneTimeValues {
  readonly #values = new Map<string, { value: string; expires: number }>();
  readonly #capacity: number;
  readonly #now: () => number;

  constructor(options: { readonly capacity?: number; readonly now?: () => number } = {}) {
    this.#capacity = options.capacity ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    const now = this.#now();
    for (const [held, entry] of this.#values) if (entry.expires <= now) this.#values.delete(held);
    while (this.#values.size >= this.#capacity) {
      const oldest = this.#values.keys().next().value;
      if (oldest === undefined) break;
      this.#values.delete(oldest);
    }
    this.#values.set(key, { value, expires: now + ttlMs });
  }

  async take(key: string): Promise<string | undefined> {
    const entry = this.#values.get(key);
    this.#values.delete(key);
    return entry !== undefined && entry.expires > this.#now() ? entry.value : undefined;
  }
}
