import type { TurnStopSignal } from '@toolbus/server';
import type { Redis } from 'ioredis';
import { RedisChannelSubscriptions } from './redis-channel-subscriptions.ts';
import type { RedisKeys } from './redis-keys.ts';

/** How long a stop request is kept for a turn still queued. */
const stopRetentionSeconds = 3_600;

/**
 * Stops across replicas: a request is a key (so a worker taking a queued turn later sees it) and a message on
 * one pub/sub channel (so the replica running it now aborts it at once).
 */
export class RedisTurnStopSignal implements TurnStopSignal {
  readonly #redis: Redis;
  readonly #keys: RedisKeys;
  readonly #subscriptions: RedisChannelSubscriptions;

  constructor(options: { readonly redis: Redis; readonly keys: RedisKeys }) {
    this.#redis = options.redis;
    this.#keys = options.keys;
    this.#subscriptions = new RedisChannelSubscriptions({
      redis: options.redis,
      channel: options.keys.stopChannel,
    });
  }

  async request(chatId: string, turn: number): Promise<void> {
    await this.#redis
      .multi()
      .set(this.#keys.stop(chatId, turn), '1', 'EX', stopRetentionSeconds)
      .publish(this.#keys.stopChannel, JSON.stringify({ chatId, turn }))
      .exec();
  }

  async requested(chatId: string, turn: number): Promise<boolean> {
    return (await this.#redis.exists(this.#keys.stop(chatId, turn))) === 1;
  }

  async subscribe(listener: (chatId: string, turn: number) => void): Promise<() => Promise<void>> {
    return this.#subscriptions.subscribe((message) => {
      const parsed = parseStop(message);
      if (parsed) listener(parsed.chatId, parsed.turn);
    });
  }

  /** Closes the subscriptions still open. */
  close(): void {
    this.#subscriptions.disconnectAll();
  }
}

function parseStop(message: string): { chatId: string; turn: number } | undefined {
  try {
    const value = JSON.parse(message) as { chatId?: unknown; turn?: unknown };
    if (typeof value.chatId === 'string' && Number.isInteger(value.turn)) {
      return { chatId: value.chatId, turn: value.turn as number };
    }
  } catch {
    // Not ours: ignored.
  }
  return undefined;
}
