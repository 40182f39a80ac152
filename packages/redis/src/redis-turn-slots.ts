import type { TurnSlots } from '@toolbus/server';
import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys.ts';

/** How long a slot lives without a refresh (a dead replica's slots are free again after this). */
export const DEFAULT_SLOT_TTL_MS = 30_000;

// Redis's own clock decides expiry, so replicas whose clocks differ agree on it.
const acquireScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local expires = now + tonumber(ARGV[3])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], expires, ARGV[1])
  return 1
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], expires, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

const refreshScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1
`;

/**
 * Per-user turn slots shared by every replica: one sorted set per user (holder → expiry), taken against the limit
 * in one script (atomic), refreshed while the turn runs, and lapsing when its replica stops refreshing it.
 */
export class RedisTurnSlots implements TurnSlots {
  readonly #redis: Redis;
  readonly #keys: RedisKeys;
  readonly #ttlMs: number;
  readonly refreshIntervalMs: number;

  constructor(options: { readonly redis: Redis; readonly keys: RedisKeys; readonly ttlMs?: number }) {
    this.#redis = options.redis;
    this.#keys = options.keys;
    this.#ttlMs = options.ttlMs ?? DEFAULT_SLOT_TTL_MS;
    this.refreshIntervalMs = Math.max(1, Math.floor(this.#ttlMs / 3));
  }

  async acquire(userId: string, holder: string, limit: number): Promise<boolean> {
    const taken = await this.#redis.eval(
      acquireScript,
      1,
      this.#keys.slots(userId),
      holder,
      String(limit),
      String(this.#ttlMs),
    );
    return taken === 1;
  }

  async refresh(userId: string, holder: string): Promise<void> {
    await this.#redis.eval(refreshScript, 1, this.#keys.slots(userId), holder, String(this.#ttlMs));
  }

  async release(userId: string, holder: string): Promise<void> {
    await this.#redis.zrem(this.#keys.slots(userId), holder);
  }
}
