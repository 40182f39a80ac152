// Where in its stream a slow chunk sits (GATEWAY_BENCH_EDGES=1): each sample's delay by its chunk's position in the
// stream (first, 2nd–5th, the middle, last), so per-answer work (a request's set-up, the first chunk's lazily built
// state, the end of an answer) tells itself apart from per-chunk work. At 200 chunks per stream a stream's first and
// last chunks are exactly 1 % of the samples, so whenever they are the slow ones the p99 lands on them.

/** One path's samples at one load: each chunk's delay and its position (0-based) in its stream. */
export interface PositionedDelays {
  readonly delays: readonly number[];
  readonly positions: readonly number[];
}

export interface EdgeRow {
  readonly load: string;
  readonly path: string;
  readonly samples: PositionedDelays;
  /** The direct path's samples at the same load: the delays the path's are compared with, bucket by bucket. */
  readonly direct: PositionedDelays;
  readonly chunksPerStream: number;
}

type Bucket = 'first' | '2–5' | 'middle' | 'last';
const buckets: readonly Bucket[] = ['first', '2–5', 'middle', 'last'];

function bucketOf(position: number, chunksPerStream: number): Bucket {
  if (position === 0) return 'first';
  if (position === chunksPerStream - 1) return 'last';
  return position <= 4 ? '2–5' : 'middle';
}

function byBucket(samples: PositionedDelays, chunksPerStream: number): Map<Bucket, number[]> {
  const grouped = new Map<Bucket, number[]>(buckets.map((bucket) => [bucket, []]));
  samples.delays.forEach((delay, index) => {
    grouped.get(bucketOf(samples.positions[index] ?? -1, chunksPerStream))?.push(delay);
  });
  return grouped;
}

/** The value at percentile `p` of `values` (the bench's one definition). */
export const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

/**
 * The table: per load and path, each bucket's added delay at p50 and p99 (the path's percentile in the bucket less
 * the direct path's in the same bucket), and how many of the path's samples are over the direct path's overall p99
 * plus 1 ms (the samples that put the added p99 over the goal when they are more than 1 % of all), by bucket.
 */
export function edgeTable(rows: readonly EdgeRow[]): string {
  const lines = [
    '| load | path | added p50 / p99 (ms): first | 2–5 | middle | last | samples over direct p99 + 1 ms: first / 2–5 / middle / last (all; 1 % of samples) |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const grouped = byBucket(row.samples, row.chunksPerStream);
    const direct = byBucket(row.direct, row.chunksPerStream);
    const added = buckets.map((bucket) => {
      const own = grouped.get(bucket) ?? [];
      const base = direct.get(bucket) ?? [];
      const at = (p: number): string => (percentile(own, p) - percentile(base, p)).toFixed(3);
      return `${at(50)} / ${at(99)}`;
    });
    const limit = percentile(row.direct.delays, 99) + 1;
    const over = buckets.map((bucket) => (grouped.get(bucket) ?? []).filter((delay) => delay > limit).length);
    const total = over.reduce((sum, count) => sum + count, 0);
    const onePercent = Math.floor(row.samples.delays.length / 100);
    lines.push(
      `| ${row.load} | ${row.path} | ${added.join(' | ')} | ${over.join(' / ')} (${total}; ${onePercent}) |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
