/**
 * Why `indexPaths` left a file out, each with the words a summary counts such files by ("2 binary (not text)").
 * One table, so a summary's categories are the reasons the files' own lines give: a text file named `.pdf` is
 * `not-pdf`, not counted as binary while its line says it is no PDF.
 */
export const INDEX_SKIP_REASONS = {
  /** A type that cannot be indexed (by its extension). */
  unsupported: 'of a type that is not indexed',
  /** The name says text, but the bytes are not. */
  binary: 'binary (not text)',
  /** Named `.pdf`, but without the `%PDF-` signature. */
  'not-pdf': 'named .pdf but not a PDF',
  /** Nothing readable after extraction, e.g. a scanned PDF. */
  'no-text': 'with no text after extraction',
} as const satisfies Readonly<Record<string, string>>;

/** Why {@link indexPaths} left a file out: a key of {@link INDEX_SKIP_REASONS}. */
export type IndexSkipReason = keyof typeof INDEX_SKIP_REASONS;

/**
 * How many files were skipped for each reason, in words and in the table's order (whatever order the files came
 * in): `1 binary (not text), 2 named .pdf but not a PDF`.
 */
export function describeSkipCounts(skipped: readonly { readonly reason: IndexSkipReason }[]): string {
  const reasons = Object.keys(INDEX_SKIP_REASONS) as IndexSkipReason[];
  return reasons
    .map((reason) => ({ reason, count: skipped.filter((item) => item.reason === reason).length }))
    .filter(({ count }) => count > 0)
    .map(({ reason, count }) => `${count} ${INDEX_SKIP_REASONS[reason]}`)
    .join(', ');
}
