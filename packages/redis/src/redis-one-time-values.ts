import type { OneTimeValues } from '@toolbus/server';
import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys.ts';

/** One-time values every replica redeems: `SET PX` to keep, `GETDEL` to take (one taker wins). */
export class RedisOneTimeValues implements OneTimeValues {
  readonly #redis: Redis;
  readonly #keys: RedisKeys;

  constructor(options: { readonly redis: Redis; readonly keys: RedisKeys }) {
    this.#redis = options.redis;
    this.#keys = options.keys;
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    await this.#redis.set(this.#keys.oneTime(key), value, 'PX', ttlMs);
  }

  async take(key: string): Promise<string | undefined> {
    return (await this.#redis.getdel(this.#keys.oneTime(key))) ?? undefined;
  }
}
