import type { ApprovalAsks } from './approval-asks.ts';
import type { ApprovalRelay } from './approval-relay.ts';
import type { RequestRateLimit } from './request-rate-limit.ts';
import type { SharedTurnPacketLog } from './shared-turn-packet-log.ts';
import type { SingleFlightLock } from './single-flight-lock.ts';
import type { TurnQueue } from './turn-queue.ts';
import type { TurnSlots } from './turn-slots.ts';
import type { TurnStopSignal } from './turn-stop-signal.ts';

/** Timing of the sweep of abandoned turns (see {@link ScaleOutBackend.abandonedTurnSweep}). */
export interface AbandonedTurnSweepTiming {
  /** How often a worker replica sweeps (default 60 s; it also sweeps when it starts). */
  readonly intervalMs?: number;
  /**
   * How old a running turn must be before the sweep may close it (default 60 s): a turn an API replica just
   * recorded is queued a moment later, and must not be closed in between.
   */
  readonly graceMs?: number;
}

/**
 * What several replicas of one deployment share (docs/scale-out.md). Without it, a server runs every turn in its
 * own process, as a single replica does.
 */
export interface ScaleOutBackend {
  readonly packets: SharedTurnPacketLog;
  readonly stops: TurnStopSignal;
  readonly slots: TurnSlots;
  /** The per-user request allowance per minute, one for the whole deployment. */
  readonly rateLimit: RequestRateLimit;
  readonly locks: SingleFlightLock;
  readonly queue: TurnQueue;
  /** Egress approvals decided on any replica (default: the replica whose proxy waits only sees its own). */
  readonly approvals?: ApprovalRelay;
  /** Approval asks of standalone egress proxies (`toolbus egress serve`), for the replica running the chat's turn. */
  readonly approvalAsks?: ApprovalAsks;
  /** MCP elicitation answers given on any replica (the answer is an encoded string; default: this replica's only). */
  readonly elicitations?: ApprovalRelay<string>;
  /** Whether this replica runs queued turns (a worker) or only serves the API (default true). */
  readonly worker?: boolean;
  /** Timing of the sweep that closes turns recorded as running that no job and no worker has. */
  readonly abandonedTurnSweep?: AbandonedTurnSweepTiming;
  /** Closes the connections (after the server stopped its turns). */
  close(): Promise<void>;
}
