import type { WarningLogger } from '@toolbus/spec';

/** How many distinct warnings are remembered; past it the oldest is forgotten (and may be logged again). */
const rememberedWarnings = 1000;

/**
 * A {@link WarningLogger} that passes each distinct warning (message and fields) to `logger` once per `windowMs`
 * (default 10 minutes). Assembly runs per turn: an MCP server that is down would otherwise log the same line on
 * every turn of every user.
 */
export function repeatLimitedWarnings(
  logger: WarningLogger,
  options: { readonly windowMs?: number; readonly now?: () => number } = {},
): WarningLogger {
  const windowMs = options.windowMs ?? 10 * 60_000;
  const now = options.now ?? Date.now;
  const lastLogged = new Map<string, number>();
  return {
    warn(message, fields) {
      const key = fields === undefined ? message : `${message}\u0000${JSON.stringify(fields)}`;
      const at = now();
      const last = lastLogged.get(key);
      if (last !== undefined && at - last < windowMs) return;
      // Re-inserted, so the map's order is the order of last logging and the first key is the stalest.
      lastLogged.delete(key);
      lastLogged.set(key, at);
      if (lastLogged.size > rememberedWarnings) {
        const stalest = lastLogged.keys().next().value;
        if (stalest !== undefined) lastLogged.delete(stalest);
      }
      logger.warn(message, fields);
    },
  };
}
