import type { RequestRateLimit } from '@toolbus/server';
import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys.ts';

// One token bucket per user in a hash (tokens, at), refilled and taken in one script (atomic across replicas) on
// Redis's own clock, so replicas whose clocks differ agree. A bucket untouched for a minute is full again, so it
// expires then. Returns -1 when allowed, else the whole seconds until a token is available.
const takeScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local capacity = tonumber(ARGV[1])
local refill = capacity / 60000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or capacity
local at = tonumber(state[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * refill)
local allowed = tokens >= 1
if allowed then tokens = tokens - 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], 60000)
if allowed then return -1 end
return math.max(1, math.ceil((1 - tokens) / refill / 1000))
`;

/** The per-user request allowance shared by every replica: one bucket per user in Redis. */
export class RedisRequestRateLimit implements RequestRateLimit {
  readonly #redis: Redis;
  readonly #keys: RedisKeys;

  constructor(options: { readonly redis: Redis; readonly keys: RedisKeys }) {
    this.#redis = options.redis;
    this.#keys = options.keys;
  }

  async take(key: string, perMinute: number): Promise<number | undefined> {
    const wait = Number(
      await this.#redis.eval(takeScript, 1, this.#keys.rate(key), String(Math.max(1, perMinute))),
    );
    return wait < 0 ? undefined : wait;
  }
}
