import type { SingleFlightLock, TurnDelivery, TurnJob, TurnQueue } from '@toolbus/server';
import { withinDeadline } from '@toolbus/spec';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys.ts';
import { RedisScaleOutError } from './redis-scale-out-error.ts';

/** Timing of the durable-turn queue; the defaults suit production, tests shorten them. */
export interface TurnQueueTiming {
  /** How long a worker's hold on a job (and on its turn) lasts without renewal (default 30 s). */
  readonly lockDurationMs?: number;
  /** How often workers look for jobs whose worker died (default 15 s). */
  readonly stalledIntervalMs?: number;
  /** Turns one worker replica runs at once (default 64). */
  readonly concurrency?: number;
  /**
   * How long queueing a turn may take before it counts as failed (default 10 s): the queue's connection waits for
   * Redis to come back rather than fail, and a request must not wait with it.
   */
  readonly enqueueTimeoutMs?: number;
}

/** Job states in which a worker runs the job now or will: the turn is not abandoned. */
const pendingJobStates = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

/** How long the "started" mark of a turn is kept (a redelivery after that is treated as a first delivery). */
const startedRetentionSeconds = 24 * 3_600;

/** Called with a processing failure a job could not report itself. */
export type TurnQueueErrorListener = (event: string, error: unknown) => void;

/**
 * Durable turns on BullMQ: each recorded turn is one job, taken by any worker replica. A worker holds the turn
 * with a lock it renews while the turn runs; when the worker dies, BullMQ's stalled-job check delivers the job
 * again, and the next worker (once the dead one's hold lapsed) sees that the turn had started: a redelivery.
 */
export class BullMqTurnQueue implements TurnQueue {
  readonly #keys: RedisKeys;
  readonly #redis: Redis;
  readonly #locks: SingleFlightLock;
  readonly #timing: Required<TurnQueueTiming>;
  readonly #queue: Queue;
  readonly #onError: TurnQueueErrorListener;
  #worker: Worker | undefined;
  /** BullMQ leaves connections it was handed open: they are closed here. */
  readonly #connections: Redis[] = [];

  constructor(options: {
    readonly redis: Redis;
    readonly keys: RedisKeys;
    readonly locks: SingleFlightLock;
    readonly timing?: TurnQueueTiming;
    readonly onError?: TurnQueueErrorListener;
  }) {
    this.#keys = options.keys;
    this.#redis = options.redis;
    this.#locks = options.locks;
    this.#onError = options.onError ?? (() => {});
    this.#timing = {
      lockDurationMs: options.timing?.lockDurationMs ?? 30_000,
      stalledIntervalMs: options.timing?.stalledIntervalMs ?? 15_000,
      concurrency: options.timing?.concurrency ?? 64,
      enqueueTimeoutMs: options.timing?.enqueueTimeoutMs ?? 10_000,
    };
    this.#queue = new Queue('turns', {
      connection: this.#connection(),
      prefix: options.keys.queuePrefix,
    });
    this.#queue.on('error', (error) => this.#onError('queue.error', error));
  }

  async enqueue(job: TurnJob): Promise<void> {
    const { enqueueTimeoutMs } = this.#timing;
    await withinDeadline(
      this.#queue.add('turn', job, {
        jobId: jobIdOf(job.chatId, job.turn),
        removeOnComplete: true,
        removeOnFail: 1_000,
      }),
      {
        timeoutMs: enqueueTimeoutMs,
        onTimeout: () =>
          new RedisScaleOutError({
            code: 'redis_unavailable',
            message: `Redis did not take the turn into the queue within ${enqueueTimeoutMs} ms.`,
          }),
      },
    );
  }

  async holdIfAbandoned(chatId: string, turn: number): Promise<(() => Promise<void>) | undefined> {
    const holdKey = holdKeyOf(chatId, turn);
    // The worker's own hold first: while the sweep has it, no worker can start the turn.
    const token = await this.#locks.acquire(holdKey, this.#timing.lockDurationMs);
    if (token === undefined) return undefined;
    const release = async () => {
      await this.#locks.release(holdKey, token);
    };
    try {
      const job = await this.#queue.getJob(jobIdOf(chatId, turn));
      const state = job === undefined ? 'unknown' : await job.getState();
      if (!pendingJobStates.has(state)) return release;
    } catch (error) {
      await release().catch(() => undefined);
      throw error;
    }
    await release();
    return undefined;
  }

  async work(run: (job: TurnJob, delivery: TurnDelivery) => Promise<void>): Promise<void> {
    if (this.#worker) return;
    const { lockDurationMs, stalledIntervalMs, concurrency } = this.#timing;
    this.#worker = new Worker(
      'turns',
      async (job) => {
        await this.#process(job.data as TurnJob, run);
      },
      {
        connection: this.#connection(),
        prefix: this.#keys.queuePrefix,
        concurrency,
        lockDuration: lockDurationMs,
        stalledInterval: stalledIntervalMs,
        // A job whose worker died is delivered again (a chat turn is closed then, a research turn resumed), even after
        // a few deaths in a row.
        maxStalledCount: 5,
      },
    );
    this.#worker.on('error', (error) => this.#onError('worker.error', error));
    this.#worker.on('failed', (_job, error) => this.#onError('job.failed', error));
    await this.#worker.waitUntilReady();
  }

  async close(): Promise<void> {
    await this.#worker?.close();
    await this.#queue.close();
    for (const connection of this.#connections.splice(0)) {
      await connection.quit().catch(() => connection.disconnect());
    }
  }

  /** BullMQ's connection: its own (blocking commands), never giving up on a request while Redis is away. */
  #connection(): Redis {
    const connection = this.#redis.duplicate({ maxRetriesPerRequest: null });
    connection.on('error', (error) => this.#onError('queue.connection_error', error));
    this.#connections.push(connection);
    return connection;
  }

  async #process(job: TurnJob, run: (job: TurnJob, delivery: TurnDelivery) => Promise<void>): Promise<void> {
    const holdKey = holdKeyOf(job.chatId, job.turn);
    const { lockDurationMs } = this.#timing;
    // A worker that BullMQ took for dead while it still runs the turn keeps renewing its hold: this delivery
    // waits until that worker ends the turn or really dies (its hold lapses).
    let token: string | undefined;
    for (;;) {
      token = await this.#locks.acquire(holdKey, lockDurationMs);
      if (token !== undefined) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(500, lockDurationMs / 4)));
    }
    const held = token;
    const lost = new AbortController();
    let keptAt = Date.now();
    const extend = async (): Promise<boolean> => {
      if (lost.signal.aborted) return false;
      const startedAt = Date.now();
      const kept = await this.#locks.extend(holdKey, held, lockDurationMs);
      if (kept) keptAt = startedAt;
      else lost.abort();
      return kept;
    };
    const renew = setInterval(
      () => {
        extend().catch((error: unknown) => this.#onError('turn.hold_renew_failed', error));
      },
      Math.max(1, Math.floor(lockDurationMs / 3)),
    );
    // Renewed within the last half of the hold: still ours without asking Redis (it cannot have lapsed yet).
    // While Redis does not answer, the hold is ours until it could have lapsed (no other replica can take it
    // without Redis either): a short Redis outage does not stop the turn. Redis is asked at most once a second.
    let unansweredAt = 0;
    const stillHeld = async (): Promise<boolean> => {
      if (lost.signal.aborted) return false;
      const age = Date.now() - keptAt;
      if (age < lockDurationMs / 2) return true;
      if (Date.now() - unansweredAt < 1_000) return age < lockDurationMs;
      try {
        return await extend();
      } catch {
        unansweredAt = Date.now();
        return Date.now() - keptAt < lockDurationMs;
      }
    };
    try {
      const first = await this.#redis.set(
        this.#keys.started(job.chatId, job.turn),
        '1',
        'EX',
        startedRetentionSeconds,
        'NX',
      );
      await run(job, { redelivered: first !== 'OK', signal: lost.signal, held: stillHeld });
    } finally {
      clearInterval(renew);
      await this.#locks.release(holdKey, held).catch(() => false);
    }
  }
}

/** One job per turn: a second enqueue of the same turn is a no-op. */
function jobIdOf(chatId: string, turn: number): string {
  return `turn-${chatId}-${turn}`;
}

/** The lock a worker holds while it runs the turn (and the abandoned-turn sweep while it closes it). */
function holdKeyOf(chatId: string, turn: number): string {
  return `turn-owner:${chatId}:${turn}`;
}
