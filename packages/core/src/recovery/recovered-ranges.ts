/**
 * The ranges of text already recovered as calls during one extraction: disjoint half-open ranges kept sorted by
 * start, looked up and inserted by binary search. A call whose range overlaps one is dropped by the extractor
 * (that text was claimed by a higher-priority dialect), so a parser may pass over such a call unread.
 */
export class RecoveredRanges {
  readonly #starts: number[] = [];
  readonly #ends: number[] = [];

  /** Whether `[start, end)` (an empty range: its position) overlaps a recovered range. */
  overlaps(start: number, end: number): boolean {
    const index = this.#firstStartAtOrAfter(start);
    const previous = index - 1;
    if (previous >= 0 && this.#ends[previous]! > start) return true;
    if (index < this.#starts.length && this.#starts[index]! < Math.max(end, start + 1)) return true;
    return false;
  }

  /** The end of the recovered range holding `position`, or `position` when none does. */
  endOfRangeAt(position: number): number {
    const previous = this.#firstStartAtOrAfter(position + 1) - 1;
    return previous >= 0 && this.#ends[previous]! > position ? this.#ends[previous]! : position;
  }

  /** Records `[start, end)`, which overlaps no recovered range. */
  add(start: number, end: number): void {
    const index = this.#firstStartAtOrAfter(start);
    this.#starts.splice(index, 0, start);
    this.#ends.splice(index, 0, end);
  }

  /**
   * The smallest position from which `[position, end)` lies wholly inside recovered ranges (`end` when the last
   * one does not reach it). A left-to-right parser may stop there: every call it found from there on would
   * overlap recovered text and be dropped.
   */
  claimedFrom(end: number): number {
    const count = this.#starts.length;
    if (this.#claimed.count === count && this.#claimed.end === end) return this.#claimed.from;
    let from = end;
    for (let index = count - 1; index >= 0; index--) {
      if (this.#ends[index]! < from) break;
      if (this.#starts[index]! < from) from = this.#starts[index]!;
    }
    this.#claimed = { count, end, from };
    return from;
  }

  #claimed = { count: 0, end: -1, from: 0 };

  #firstStartAtOrAfter(value: number): number {
    let low = 0;
    let high = this.#starts.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#starts[middle]! < value) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
