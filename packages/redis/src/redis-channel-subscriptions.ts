import type { Redis } from 'ioredis';

/**
 * Pub/sub listeners on one channel, each on its own connection (a subscribed ioredis connection can do nothing
 * else), and the ones still open when their owner closes. Shared by the stop signal and the approval relay.
 */
export class RedisChannelSubscriptions {
  readonly #redis: Redis;
  readonly #channel: string;
  readonly #subscribers = new Set<Redis>();

  constructor(options: { readonly redis: Redis; readonly channel: string }) {
    this.#redis = options.redis;
    this.#channel = options.channel;
  }

  /** Calls `onMessage` with every message published on the channel until the returned function is called. */
  async subscribe(onMessage: (message: string) => void): Promise<() => Promise<void>> {
    const subscriber = this.#redis.duplicate();
    // Reported where the base connection's errors are (a duplicate has no listener: Node would print the error).
    subscriber.on('error', (error) => this.#redis.emit('error', error));
    this.#subscribers.add(subscriber);
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.#channel) onMessage(message);
    });
    await subscriber.subscribe(this.#channel);
    return async () => {
      this.#subscribers.delete(subscriber);
      await subscriber.quit().catch(() => subscriber.disconnect());
    };
  }

  /** Drops the subscriptions still open, without waiting for Redis. */
  disconnectAll(): void {
    for (const subscriber of this.#subscribers) subscriber.disconnect();
    this.#subscribers.clear();
  }
}
