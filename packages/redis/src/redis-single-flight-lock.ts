import { randomUUID } from 'node:crypto';
import type { SingleFlightLock } from '@toolbus/server';
import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys.ts';

const extendScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

const releaseScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** A lock every replica sees: `SET NX PX` with a random token; extend and release only while the token holds it. */
export class RedisSingleFlightLock implements SingleFlightLock {
  readonly #redis: Redis;
  readonly #keys: RedisKeys;

  constructor(options: { readonly redis: Redis; readonly keys: RedisKeys }) {
    this.#redis = options.redis;
    this.#keys = options.keys;
  }

  async acquire(key: string, ttlMs: number): Promise<string | undefined> {
    const token = randomUUID();
    const set = await this.#redis.set(this.#keys.lock(key), token, 'PX', ttlMs, 'NX');
    return set === 'OK' ? token : undefined;
  }

  async extend(key: string, token: string, ttlMs: number): Promise<boolean> {
    return (await this.#redis.eval(extendScript, 1, this.#keys.lock(key), token, String(ttlMs))) === 1;
  }

  async release(key: string, token: string): Promise<boolean> {
    return (await this.#redis.eval(releaseScript, 1, this.#keys.lock(key), token)) === 1;
  }
}
