import { Redis } from 'ioredis';
import { RedisScaleOutError } from './redis-scale-out-error.ts';

/**
 * A connection to the deployment's Redis, answering before it is returned (else `redis_unavailable`, whose message
 * never holds the URL: it may carry a password). Errors after that go to `onError`.
 */
export async function connectRedis(options: {
  readonly url: string;
  readonly connectTimeoutMs?: number;
  readonly onError: (error: unknown) => void;
}): Promise<Redis> {
  const redis = new Redis(options.url, {
    lazyConnect: true,
    connectTimeout: options.connectTimeoutMs ?? 10_000,
    maxRetriesPerRequest: 3,
  });
  redis.on('error', options.onError);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new RedisScaleOutError({
      code: 'redis_unavailable',
      message: `Redis did not answer at the configured redis.url (${error instanceof Error ? error.message : String(error)}).`,
      cause: error,
    });
  }
  return redis;
}
