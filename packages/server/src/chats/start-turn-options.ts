import type { ChatTurn } from '@toolbus/core';
import type { ChatMessage, Packet } from '@toolbus/spec';
import type { ChatTurnKind } from '@toolbus/storage';
import type { TurnApprovals } from '../approvals/approval-hub.ts';
import type { TurnElicitations } from '../elicitations/elicitation-hub.ts';

/** What starting a turn takes. */
export interface StartTurnOptions {
  readonly chatId: string;
  readonly userId: string;
  readonly kind?: ChatTurnKind;
  /** The messages the turn adds before the answer (the user's message). */
  readonly input: readonly ChatMessage[];
  /** Starts the agent loop; called once the turn is recorded (with its index). */
  readonly run: (signal: AbortSignal, turn: number, context: TurnRunContext) => ChatTurn;
  /** Runs after the turn ended and its history is written (closes the tool assembly). */
  readonly cleanup?: () => Promise<void>;
  /** The turn's egress approvals: their packets join the stream at the tool call they belong to. */
  readonly approvals?: TurnApprovals;
  /** The turn's MCP elicitations: their packets join the stream at the tool call that asks. */
  readonly elicitations?: TurnElicitations;
  /** The concurrency slot the turn holds ({@link TurnRunner.acquireSlot}): kept alive while it runs, then freed. */
  readonly slot?: string;
  /**
   * For a queued turn: true while this replica still holds it. Checked before every write; once false the turn is
   * aborted and writes nothing more (the replica that took it over closes it).
   */
  readonly held?: () => Promise<boolean>;
  /**
   * The turn ran before on a replica that died, and this run goes on from where it stopped (a Deep Research run
   * resumed from its checkpoint): the packets stored so far are kept and published first, and this run's packets
   * follow them in the same sequence.
   */
  readonly continues?: boolean;
}

/** What a turn's loop may ask of the runner driving it. */
export interface TurnRunContext {
  /** The packets stored before this run started (see {@link StartTurnOptions.continues}), in order. */
  readonly earlier: readonly Packet[];
  /**
   * Resolves once every packet the loop emitted so far is stored and published: true, or false when this replica
   * no longer holds the turn or could not store them (then nothing that depends on them may be written either).
   */
  persisted(): Promise<boolean>;
}
