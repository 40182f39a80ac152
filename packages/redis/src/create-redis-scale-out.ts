import type { AbandonedTurnSweepTiming, ScaleOutBackend } from '@toolbus/server';
import { omitUndefined } from '@toolbus/spec';
import { BlockingConnections } from './blocking-connections.ts';
import { BullMqTurnQueue, type TurnQueueErrorListener, type TurnQueueTiming } from './bullmq-turn-queue.ts';
import { connectRedis } from './connect-redis.ts';
import { RedisApprovalAsks } from './redis-approval-asks.ts';
import { elicitationKind, RedisApprovalRelay } from './redis-approval-relay.ts';
import { RedisKeys } from './redis-keys.ts';
import { RedisRequestRateLimit } from './redis-request-rate-limit.ts';
import { RedisSingleFlightLock } from './redis-single-flight-lock.ts';
import { RedisTurnPacketLog } from './redis-turn-packet-log.ts';
import { RedisTurnSlots } from './redis-turn-slots.ts';
import { RedisTurnStopSignal } from './redis-turn-stop-signal.ts';

/** Options for {@link createRedisScaleOut}. */
export interface RedisScaleOutOptions {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://`). Never logged. */
  readonly url: string;
  /** Key prefix, so deployments can share a Redis (default `toolbus:`). */
  readonly prefix?: string;
  /** Whether this replica runs queued turns (default true); false: it only serves the API. */
  readonly worker?: boolean;
  /** Queue timing (hold duration, stalled-job checks, concurrency). */
  readonly queue?: TurnQueueTiming;
  /** How long a slot lives without a refresh (default 30 s). */
  readonly slotTtlMs?: number;
  /** How long an ended turn's stream stays in Redis (default 10 min). */
  readonly endedTurnRetentionMs?: number;
  /** Called with a background failure (by event name; the error carries no secret). */
  readonly onError?: TurnQueueErrorListener;
  /** How long to wait for Redis at start (default 10 s). */
  readonly connectTimeoutMs?: number;
  /** Timing of the worker replicas' sweep of abandoned turns (defaults: every 60 s, turns older than 60 s). */
  readonly abandonedTurnSweep?: AbandonedTurnSweepTiming;
}

/**
 * Connects to Redis and builds everything replicas share: turn packets in streams, stops, per-user slots and rate
 * limits, single-flight locks, egress approvals and the durable turn queue (BullMQ on the same Redis). Pass the result as `scaleOut` to
 * `createServer`; close it after the server.
 */
export async function createRedisScaleOut(options: RedisScaleOutOptions): Promise<ScaleOutBackend> {
  const keys = new RedisKeys(options.prefix);
  const onError = options.onError ?? (() => {});
  const redis = await connectRedis({
    url: options.url,
    onError: (error) => onError('redis.error', error),
    ...omitUndefined({ connectTimeoutMs: options.connectTimeoutMs }),
  });
  const blocking = new BlockingConnections(redis);
  const locks = new RedisSingleFlightLock({ redis, keys });
  const stops = new RedisTurnStopSignal({ redis, keys });
  const approvals = new RedisApprovalRelay({ redis, keys });
  const approvalAsks = new RedisApprovalAsks({ redis, keys });
  const elicitations = new RedisApprovalRelay<string>({ redis, keys, kind: elicitationKind(keys) });
  const queue = new BullMqTurnQueue({
    redis,
    keys,
    locks,
    onError,
    ...omitUndefined({ timing: options.queue }),
  });
  return {
    packets: new RedisTurnPacketLog({
      redis,
      blocking,
      keys,
      ...omitUndefined({ endedRetentionMs: options.endedTurnRetentionMs }),
    }),
    stops,
    slots: new RedisTurnSlots({
      redis,
      keys,
      ...omitUndefined({ ttlMs: options.slotTtlMs }),
    }),
    rateLimit: new RedisRequestRateLimit({ redis, keys }),
    locks,
    queue,
    approvals,
    approvalAsks,
    elicitations,
    worker: options.worker ?? true,
    ...omitUndefined({ abandonedTurnSweep: options.abandonedTurnSweep }),
    async close() {
      await queue.close().catch(() => undefined);
      stops.close();
      approvals.disconnect();
      approvalAsks.disconnect();
      elicitations.disconnect();
      blocking.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
