/** What a user asks a turn to do (validated request fields), as a queued job carries it (plain JSON). */
export interface TurnRequest {
  readonly content: string;
  readonly personaId?: string | undefined;
  readonly fileIds?: readonly string[] | undefined;
  readonly tools?: readonly string[] | undefined;
  readonly model?: string | undefined;
  readonly maxCycles?: number | undefined;
  /** A Deep Research run instead of a chat turn. */
  readonly research?: boolean | undefined;
}

/** A recorded turn waiting for a worker: everything a replica needs to run it (plain JSON). */
export interface TurnJob {
  readonly chatId: string;
  readonly turn: number;
  readonly userId: string;
  /** The concurrency slot the turn holds (taken when it was queued, freed when it ends). */
  readonly slot: string;
  /** The request as validated by the replica that took it. */
  readonly request: TurnRequest;
}

/** How a job reached this worker. */
export interface TurnDelivery {
  /**
   * True when a worker took this turn before and died (or lost its hold) while running it: the turn may have
   * streamed packets and run tools already.
   */
  readonly redelivered: boolean;
  /** Aborts when this worker loses its hold on the turn (another worker may take it over). */
  readonly signal: AbortSignal;
  /**
   * True while this worker still holds the turn, checked before each write (renewing the hold when it is old):
   * a worker whose event loop stalled past its hold must not write next to the one that took the turn over.
   */
  held(): Promise<boolean>;
}

/**
 * Durable turns: a turn is queued once recorded and run by whichever worker replica takes it; a turn whose worker
 * dies is delivered again to another one.
 */
export interface TurnQueue {
  /** Queues a recorded turn; rejects when the queue did not take it (the turn then never runs). */
  enqueue(job: TurnJob): Promise<void>;
  /**
   * For the sweep of abandoned turns: when the turn has no job waiting or running and no worker holds it, holds
   * it (no worker can start it meanwhile) and returns the release; undefined when a job or a worker has it.
   */
  holdIfAbandoned(chatId: string, turn: number): Promise<(() => Promise<void>) | undefined>;
  /** Starts taking jobs (a worker replica); `run` settles when the turn ended and its end is written. */
  work(run: (job: TurnJob, delivery: TurnDelivery) => Promise<void>): Promise<void>;
  /** Stops taking jobs and waits for the ones running here. */
  close(): Promise<void>;
}
