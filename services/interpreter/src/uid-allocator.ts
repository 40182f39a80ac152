/**
 * Hands out host uids for sandboxes, each in use by at most one execution or session at a time, so that
 * RLIMIT_NPROC counts one run's processes only and a 0700 directory of one run is closed to every other run.
 */
export class UidAllocator {
  readonly #first: number;
  readonly #count: number;
  readonly #inUse = new Set<number>();
  #next = 0;

  constructor(options: { first: number; count: number }) {
    this.#first = options.first;
    this.#count = options.count;
  }

  /** A uid nobody holds; throws when all are taken (the concurrency caps keep that from happening). */
  acquire(): number {
    for (let tried = 0; tried < this.#count; tried += 1) {
      const uid = this.#first + ((this.#next + tried) % this.#count);
      if (!this.#inUse.has(uid)) {
        this.#inUse.add(uid);
        this.#next = (uid - this.#first + 1) % this.#count;
        return uid;
      }
    }
    throw new Error('no sandbox uid free');
  }

  release(uid: number): void {
    this.#inUse.delete(uid);
  }
}
