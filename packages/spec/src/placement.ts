/** One level of a placement: which cycle of a loop (`turn`) and which parallel tool in it (`tab`). */
export interface PlacementLevel {
  readonly turn: number;
  readonly tab: number;
}

/**
 * Where a packet belongs in the UI's timeline. `turn` increases through the turn's cycles; `tab` separates
 * parallel tool calls of one cycle. A tool that runs its own loop (a research agent, the coding agent) places its
 * packets one level deeper: `path` lists the deeper levels, outermost first. Because every level has its own
 * `tab`, tools inside a sub-agent can run in parallel too (one sub-turn index per packet could not tell them
 * apart; see docs/decisions/differences-from-onyx.md).
 */
export interface Placement extends PlacementLevel {
  readonly path?: readonly PlacementLevel[];
}

/** The placement of a level nested under `parent` (e.g. step 3, tool 1 of a research agent). */
export function nestedPlacement(parent: Placement, level: PlacementLevel): Placement {
  return {
    turn: parent.turn,
    tab: parent.tab,
    path: [...(parent.path ?? []), { turn: level.turn, tab: level.tab }],
  };
}

/** A stable string key for a placement, e.g. `3.0` or `3.1/2.0`: handy to group packets into tabs. */
export function placementKey(placement: Placement): string {
  let key = `${placement.turn}.${placement.tab}`;
  for (const level of placement.path ?? []) key += `/${level.turn}.${level.tab}`;
  return key;
}

/** True when `inner` is `outer` itself or lies below it (same turn and tab, and `outer`'s path is a prefix). */
export function isPlacementWithin(inner: Placement, outer: Placement): boolean {
  if (inner.turn !== outer.turn || inner.tab !== outer.tab) return false;
  const outerPath = outer.path ?? [];
  const innerPath = inner.path ?? [];
  if (innerPath.length < outerPath.length) return false;
  for (let index = 0; index < outerPath.length; index += 1) {
    const outerLevel = outerPath[index];
    const innerLevel = innerPath[index];
    if (
      !outerLevel ||
      !innerLevel ||
      outerLevel.turn !== innerLevel.turn ||
      outerLevel.tab !== innerLevel.tab
    ) {
      return false;
    }
  }
  return true;
}
