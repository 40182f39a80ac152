/**
 * The names of everything the backend keeps in Redis, under one prefix (several deployments can share a Redis).
 * Chat ids are the storage's ids: no user text reaches a key name.
 */
export class RedisKeys {
  readonly prefix: string;

  constructor(prefix = 'toolbus:') {
    this.prefix = prefix;
  }

  /** The stream of a turn's packets (entry `0-<sequence>`; the end is entry `1-0`). */
  packets(chatId: string, turn: number): string {
    return `${this.prefix}turn:${chatId}:${turn}:packets`;
  }

  /** Set while a stop of the turn is requested. */
  stop(chatId: string, turn: number): string {
    return `${this.prefix}turn:${chatId}:${turn}:stop`;
  }

  /** Set once a worker started the turn: a second delivery is a redelivery. */
  started(chatId: string, turn: number): string {
    return `${this.prefix}turn:${chatId}:${turn}:started`;
  }

  /** The channel stop requests are published on. */
  get stopChannel(): string {
    return `${this.prefix}stops`;
  }

  /** A user's running-turn slots (a sorted set: holder → expiry). */
  slots(userId: string): string {
    return `${this.prefix}slots:${userId}`;
  }

  /** A user's request-rate bucket (a hash: tokens, at). */
  rate(userId: string): string {
    return `${this.prefix}rate:${userId}`;
  }

  /** A single-flight lock. */
  lock(key: string): string {
    return `${this.prefix}lock:${key}`;
  }

  /** BullMQ's own prefix (its keys live under it). */
  get queuePrefix(): string {
    return `${this.prefix}bull`;
  }
}
