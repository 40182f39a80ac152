/**
 * The candidate closest to `input` by edit distance, when it is close enough to be a likely typo (at most a third
 * of the longer name, and never more than 3 edits); undefined otherwise, so a wild guess is never suggested.
 */
export function closestName(input: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  let bestIsSwap = false;
  for (const candidate of candidates) {
    const distance = editDistance(input.toLowerCase(), candidate.toLowerCase());
    // At equal distance the same letters in another order wins: `--yse` is `--yes` typed fast, not `--sse`.
    const isSwap = sameLetters(input, candidate);
    if (distance < bestDistance || (distance === bestDistance && isSwap && !bestIsSwap)) {
      best = candidate;
      bestDistance = distance;
      bestIsSwap = isSwap;
    }
  }
  if (best === undefined) return undefined;
  const allowed = Math.min(3, Math.max(1, Math.floor(Math.max(input.length, best.length) / 3)));
  return bestDistance <= allowed || best.startsWith(input) ? best : undefined;
}

/** Edit distance where swapping two neighbouring letters counts as one edit (the commonest typo). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, index) => index)];
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (rows[i - 1]?.[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (rows[i - 1]?.[j - 1] ?? 0) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      }
      row.push(best);
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? 0;
}

function sameLetters(a: string, b: string): boolean {
  const sorted = (text: string) => [...text.toLowerCase()].sort().join('');
  return sorted(a) === sorted(b);
}
