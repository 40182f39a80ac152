/**
 * Texts of files already decoded or extracted, by file id, so paging through a PDF does not parse it again for
 * every page. Bounded by total characters (least recently used first out); a load that is still running is shared
 * by every caller asking for the same file. File ids name immutable content, so an entry never goes stale.
 */
export class FileTextCache {
  readonly #maxChars: number;
  readonly #entries = new Map<string, { readonly text: Promise<string>; chars: number }>();
  #totalChars = 0;

  constructor(options: { readonly maxChars: number }) {
    this.#maxChars = options.maxChars;
  }

  /** The cached text of `fileId`, or the result of `load` (kept when it fits the bound). */
  get(fileId: string, load: () => Promise<string>): Promise<string> {
    const cached = this.#entries.get(fileId);
    if (cached !== undefined) {
      // Re-inserting moves the entry to the end: Map order is the recency order.
      this.#entries.delete(fileId);
      this.#entries.set(fileId, cached);
      return cached.text;
    }
    const text = load();
    const entry = { text, chars: 0 };
    this.#entries.set(fileId, entry);
    text.then(
      (value) => {
        if (this.#entries.get(fileId) !== entry) return;
        if (value.length > this.#maxChars) {
          this.#entries.delete(fileId);
          return;
        }
        entry.chars = value.length;
        this.#totalChars += value.length;
        this.#evict(fileId);
      },
      () => {
        // A failed load is not remembered: the next call tries again.
        if (this.#entries.get(fileId) === entry) this.#entries.delete(fileId);
      },
    );
    return text;
  }

  /** Characters held now (loads still running count as 0). */
  get totalChars(): number {
    return this.#totalChars;
  }

  #evict(keep: string): void {
    for (const [fileId, entry] of this.#entries) {
      if (this.#totalChars <= this.#maxChars) return;
      if (fileId === keep) continue;
      this.#entries.delete(fileId);
      this.#totalChars -= entry.chars;
    }
  }
}
