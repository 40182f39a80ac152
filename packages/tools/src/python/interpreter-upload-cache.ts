/**
 * Interpreter file ids of files already uploaded, keyed by (file name, SHA-256 of the content), so the same file
 * is uploaded once per turn or agent run however often the code is re-run. Share one cache across the tool
 * instances of an agent run; make a new one per run (the interpreter's file TTL cleans the uploads up).
 */
export class InterpreterUploadCache {
  readonly #entries = new Map<string, Promise<string>>();

  /** The cached id, or the id `upload` returns (concurrent callers of one key share one upload). */
  getOrUpload(options: { name: string; sha256: string; upload: () => Promise<string> }): Promise<string> {
    const key = `${options.name}\u0000${options.sha256}`;
    const existing = this.#entries.get(key);
    if (existing) return existing;
    const pending = options.upload();
    this.#entries.set(key, pending);
    // A failed upload is forgotten, so a later run tries again.
    pending.catch(() => {
      if (this.#entries.get(key) === pending) this.#entries.delete(key);
    });
    return pending;
  }

  /** Number of cached uploads. */
  get size(): number {
    return this.#entries.size;
  }
}
