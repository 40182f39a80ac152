import { ToolbusError } from '@toolbus/spec';

/**
 * Every code a failure of the Redis backend can carry:
 * - `redis_unavailable`: the server did not answer at start, or did not take a turn into the queue in time;
 * - `packet_gap`: an append would leave a hole in a turn's packet log (a packet missing before it);
 * - `turn_log_ended`: an append to a turn whose log already holds its end.
 */
export type RedisScaleOutErrorCode = 'redis_unavailable' | 'packet_gap' | 'turn_log_ended';

/** The Redis backend refused or failed, for a stated reason (messages never hold the Redis URL or password). */
export class RedisScaleOutError extends ToolbusError<RedisScaleOutErrorCode> {
  static override readonly errorName = 'RedisScaleOutError';
}
