/** A parsed MAJOR.MINOR.PATCH. */
export type SemanticVersion = readonly [major: number, minor: number, patch: number];

/**
 * Reads a server version leniently: a leading `v` and any `-`/`+` suffix are ignored, missing parts are 0, and
 * anything unreadable (or no version at all) is 0.0.0, so an old server without a version counts as the oldest.
 */
export function parseSemanticVersion(version: string | undefined): SemanticVersion {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+].*)?$/.exec((version ?? '').trim());
  if (!match) return [0, 0, 0];
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

/** Negative when `left` is older, 0 when equal, positive when newer. */
export function compareSemanticVersions(left: SemanticVersion, right: SemanticVersion): number {
  return left[0] - right[0] || left[1] - right[1] || left[2] - right[2];
}
