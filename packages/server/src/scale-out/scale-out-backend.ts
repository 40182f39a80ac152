import type { ApprovalRelay } from './approval-relay.ts';
import type { SharedTurnPacketLog } from './shared-turn-packet-log.ts';
import type { SingleFlightLock } from './single-flight-lock.ts';
import type { TurnQueue } from './turn-queue.ts';
import type { TurnSlots } from './turn-slots.ts';
import type { TurnStopSignal } from './turn-stop-signal.ts';

/**
 * What several replicas of one deployment share (docs/scale-out.md). Without it, a server runs every turn in its
 * own process, as a single replica does.
 */
export interface ScaleOutBackend {
  readonly packets: SharedTurnPacketLog;
  readonly stops: TurnStopSignal;
  readonly slots: TurnSlots;
  readonly locks: SingleFlightLock;
  readonly queue: TurnQueue;
  /** Egress approvals decided on any replica (default: the replica whose proxy waits only sees its own). */
  readonly approvals?: ApprovalRelay;
  /** Whether this replica runs queued turns (a worker) or only serves the API (default true). */
  readonly worker?: boolean;
  /** Closes the connections (after the server stopped its turns). */
  close(): Promise<void>;
}
