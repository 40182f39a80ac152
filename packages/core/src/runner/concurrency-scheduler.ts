import type { ConcurrencyClass } from '@toolbus/spec';

/**
 * Starts calls respecting their classes: `parallel` at once; `serial` after the previous call of the same tool;
 * `exclusive` after everything started before it, and before anything after it. Calls with nothing to wait for
 * start synchronously (the common case, kept cheap).
 */
export class ConcurrencyScheduler {
  #barrier: Promise<void> | undefined;
  #sinceBarrier: Promise<void>[] = [];
  readonly #serialTails = new Map<string, Promise<void>>();
  readonly #all: Promise<void>[] = [];

  schedule(name: string, concurrency: ConcurrencyClass, start: () => Promise<void>): void {
    let done: Promise<void>;
    if (concurrency === 'exclusive') {
      const before = this.#barrier ? [this.#barrier, ...this.#sinceBarrier] : this.#sinceBarrier;
      done = before.length > 0 ? Promise.all(before).then(start) : start();
      this.#barrier = done;
      this.#sinceBarrier = [];
    } else if (concurrency === 'serial') {
      const tail = this.#serialTails.get(name);
      const before = [this.#barrier, tail].filter((gate): gate is Promise<void> => gate !== undefined);
      done = before.length > 0 ? Promise.all(before).then(start) : start();
      this.#serialTails.set(name, done);
      this.#sinceBarrier.push(done);
    } else {
      done = this.#barrier ? this.#barrier.then(start) : start();
      this.#sinceBarrier.push(done);
    }
    this.#all.push(done);
  }

  async idle(): Promise<void> {
    await Promise.all(this.#all);
  }
}
