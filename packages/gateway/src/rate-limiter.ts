/**
 * Requests per caller per minute, in a sliding one-minute window kept as a ring of the last `limit` request
 * times per caller (memory bounded by the limit and the callers seen).
 */
export class RateLimiter {
  readonly #limit: number;
  readonly #windows = new Map<string, number[]>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Takes one request for `caller`; returns 0 when allowed, else the seconds to wait. */
  take(caller: string, now = Date.now()): number {
    let times = this.#windows.get(caller);
    if (times === undefined) {
      times = [];
      this.#windows.set(caller, times);
    }
    while (times.length > 0 && (times[0] as number) <= now - 60_000) times.shift();
    if (times.length >= this.#limit)
      return Math.max(1, Math.ceil(((times[0] as number) + 60_000 - now) / 1000));
    times.push(now);
    return 0;
  }
}
