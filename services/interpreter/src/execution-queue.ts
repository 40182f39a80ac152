import { HttpError } from './http-error.ts';

/**
 * Runs at most `maxConcurrent` tasks at once; up to `maxQueued` more wait in order. Past that, `run` rejects with
 * a 503 at once, so overload shows up as an answer the client can retry instead of an ever-growing backlog.
 */
export class ExecutionQueue {
  readonly #maxConcurrent: number;
  readonly #maxQueued: number;
  readonly #waiting: Array<() => void> = [];
  #running = 0;

  constructor(options: { maxConcurrent: number; maxQueued: number }) {
    this.#maxConcurrent = options.maxConcurrent;
    this.#maxQueued = options.maxQueued;
  }

  /** Tasks running now and waiting now. */
  get load(): { running: number; queued: number } {
    return { running: this.#running, queued: this.#waiting.length };
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#maxConcurrent) {
      if (this.#waiting.length >= this.#maxQueued) {
        throw new HttpError({
          status: 503,
          code: 'queue_full',
          message: 'the interpreter is busy; retry later',
        });
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running += 1;
    }
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      // The slot passes straight to the next waiter, so the running count stays the same.
      if (next) next();
      else this.#running -= 1;
    }
  }
}
