/**
 * Finds citation markers in streamed answer text, whatever the chunking: `[1]`, `[1, 2]`, `[[1]]`, and the
 * full-width `【1】` and `［1］` forms. Markers inside code fences are not citations. Only a possible marker's
 * tail is carried between chunks, so the work per chunk is proportional to the chunk.
 */
export class CitationMarkerScanner {
  #carry = '';
  #inFence = false;
  #backticks = 0;

  /** Feeds a chunk; returns the citation numbers of the markers it completed, in order. */
  process(chunk: string): number[] {
    const text = this.#carry + chunk;
    this.#carry = '';
    const found: number[] = [];
    let index = 0;
    while (index < text.length) {
      const character = text[index] as string;
      if (character === '`') {
        this.#backticks += 1;
        if (this.#backticks === 3) {
          this.#inFence = !this.#inFence;
          this.#backticks = 0;
        }
        index += 1;
        continue;
      }
      this.#backticks = 0;
      if (!this.#inFence && isOpening(character)) {
        const match = matchMarker(text, index);
        if (match === 'incomplete') {
          this.#carry = text.slice(index);
          return found;
        }
        if (match) {
          found.push(...match.numbers);
          index = match.end;
          continue;
        }
      }
      index += 1;
    }
    return found;
  }
}

const openings = new Set(['[', '【', '［']);
const closings: Record<string, string> = { '[': ']', '【': '】', '［': '］' };
const maxMarkerLength = 64;

function isOpening(character: string): boolean {
  return openings.has(character);
}

function matchMarker(
  text: string,
  start: number,
): { numbers: number[]; end: number } | 'incomplete' | undefined {
  const open = text[start] as string;
  const close = closings[open] as string;
  let index = start + 1;
  const doubled = text[index] === open;
  if (doubled) index += 1;
  const numbers: number[] = [];
  let digits = '';
  while (index < text.length && index - start <= maxMarkerLength) {
    const character = text[index] as string;
    if (character >= '0' && character <= '9') {
      digits += character;
    } else if (character === ',' || character === ' ') {
      if (digits) numbers.push(Number(digits));
      digits = '';
    } else if (character === close) {
      if (digits) numbers.push(Number(digits));
      if (numbers.length === 0) return undefined;
      if (doubled) {
        if (index + 1 >= text.length) return 'incomplete';
        if (text[index + 1] !== close) return undefined;
        return { numbers, end: index + 2 };
      }
      return { numbers, end: index + 1 };
    } else {
      return undefined;
    }
    index += 1;
  }
  return index >= text.length && index - start <= maxMarkerLength ? 'incomplete' : undefined;
}
