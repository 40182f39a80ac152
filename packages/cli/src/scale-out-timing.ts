import { omitUndefined, ToolbusError } from '@toolbus/spec';
import type { ToolbusConfigFile } from './cli-config.ts';

/**
 * The settings that decide how fast a dead replica's turns are taken over (docs/scale-out.md, "Takeover time"):
 * each a `toolbus serve` flag, an environment variable and a `redis.*` config key, in that order of precedence.
 */
export const SCALE_OUT_TIMING_SETTINGS = [
  { flag: 'turn-lock-ms', env: 'TOOLBUS_TURN_LOCK_MS', key: 'turnLockMs', fallbackMs: 30_000 },
  { flag: 'stalled-check-ms', env: 'TOOLBUS_STALLED_CHECK_MS', key: 'stalledCheckMs', fallbackMs: 15_000 },
  { flag: 'slot-ttl-ms', env: 'TOOLBUS_SLOT_TTL_MS', key: 'slotTtlMs', fallbackMs: 30_000 },
] as const;

type TimingKey = (typeof SCALE_OUT_TIMING_SETTINGS)[number]['key'];

/** What `createRedisScaleOut` takes of the timing (only what was set). */
export interface ScaleOutTiming {
  readonly queue?: { readonly lockDurationMs?: number; readonly stalledIntervalMs?: number };
  readonly slotTtlMs?: number;
}

/**
 * Reads the timing from the flags, then the environment, then the config file's `redis` section. A value that is
 * not a whole number of milliseconds above 0 is refused, naming where it came from.
 */
export function resolveScaleOutTiming(options: {
  readonly flags: Readonly<Record<string, string | boolean | undefined>>;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly file: ToolbusConfigFile['redis'];
}): ScaleOutTiming {
  const values: Partial<Record<TimingKey, number>> = {};
  for (const setting of SCALE_OUT_TIMING_SETTINGS) {
    const sources: [string, unknown][] = [
      [`--${setting.flag}`, options.flags[setting.flag]],
      [setting.env, options.env[setting.env] || undefined],
      [`redis.${setting.key}`, options.file?.[setting.key]],
    ];
    const found = sources.find(([, value]) => value !== undefined);
    if (!found) continue;
    const [source, raw] = found;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new ToolbusError({
        code: 'config_invalid_value',
        message: `${source} takes a whole number of milliseconds above 0, not "${String(raw)}".`,
      });
    }
    values[setting.key] = value;
  }
  const { turnLockMs, stalledCheckMs, slotTtlMs } = values;
  const queue = {
    ...omitUndefined({ lockDurationMs: turnLockMs, stalledIntervalMs: stalledCheckMs }),
  };
  return {
    ...(Object.keys(queue).length > 0 ? { queue } : {}),
    ...omitUndefined({ slotTtlMs }),
  };
}
