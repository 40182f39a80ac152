import type { ApprovalDecision } from '@toolbus/egress';

/** An approval as the relay keeps it while the egress proxy of some replica waits for it. */
export interface WaitingApproval {
  readonly approvalId: string;
  /** The only user who may decide it (the chat's owner). */
  readonly userId: string;
  /** How long it may wait; after that it is gone even if its replica died without closing it. */
  readonly ttlMs: number;
}

/**
 * Carries an approval decision from the replica that received `POST /v1/approvals/{id}` to the replica whose
 * egress proxy parks the request (the worker running the turn), and keeps the chat's session grants where every
 * replica sees them. The first of a decision and a close wins: a decision after the close finds nothing.
 * `D` is what a decision is: an egress approval's, or (the elicitation hub) an MCP elicitation's encoded answer.
 */
export interface ApprovalRelay<D extends string = ApprovalDecision> {
  /** Records an approval as waiting for `userId`'s decision. */
  open(approval: WaitingApproval): Promise<void>;
  /**
   * Records the owner's decision and tells the waiting replica; false when no approval of `userId`'s with this
   * id waits (unknown, another user's, lapsed, closed or already decided): the caller cannot tell which.
   */
  decide(userId: string, approvalId: string, decision: D): Promise<boolean>;
  /** Ends the wait however it ended (called by the waiting replica); the decision recorded by then, if any. */
  close(approvalId: string): Promise<D | undefined>;
  /** The decision recorded for a waiting approval, if any (recovers a decision whose message was lost). */
  decision(approvalId: string): Promise<D | undefined>;
  /** Calls `listener` on every decision from any replica; resolves once listening. Returns the unsubscribe. */
  subscribe(listener: (approvalId: string, decision: D) => void): Promise<() => Promise<void>>;
  /** Grants `grants` (opaque strings: target and action) for the rest of the session. */
  grant(sessionId: string, grants: readonly string[]): Promise<void>;
  /** True when the session holds every one of `grants`. */
  granted(sessionId: string, grants: readonly string[]): Promise<boolean>;
  /**
   * How often a waiting replica re-reads its approvals' decisions (ms), for a relay whose messages can be lost
   * (a subscriber reconnecting); undefined when every decision is delivered.
   */
  readonly recheckIntervalMs?: number;
}

interface Waiting<D extends string> {
  readonly userId: string;
  readonly expires: number;
  decision?: D;
}

/** Approvals of this process only: a decision is delivered at once, grants live as long as the process. */
export class InProcessApprovalRelay<D extends string = ApprovalDecision> implements ApprovalRelay<D> {
  readonly #waiting = new Map<string, Waiting<D>>();
  readonly #grants = new Map<string, Set<string>>();
  readonly #listeners = new Set<(approvalId: string, decision: D) => void>();
  readonly #now: () => number;

  constructor(options: { readonly now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async open(approval: WaitingApproval): Promise<void> {
    this.#waiting.set(approval.approvalId, {
      userId: approval.userId,
      expires: this.#now() + approval.ttlMs,
    });
  }

  async decide(userId: string, approvalId: string, decision: D): Promise<boolean> {
    const waiting = this.#live(approvalId);
    if (waiting === undefined || waiting.userId !== userId || waiting.decision !== undefined) return false;
    waiting.decision = decision;
    for (const listener of this.#listeners) listener(approvalId, decision);
    return true;
  }

  async close(approvalId: string): Promise<D | undefined> {
    const waiting = this.#waiting.get(approvalId);
    this.#waiting.delete(approvalId);
    return waiting?.decision;
  }

  async decision(approvalId: string): Promise<D | undefined> {
    return this.#live(approvalId)?.decision;
  }

  async subscribe(listener: (approvalId: string, decision: D) => void): Promise<() => Promise<void>> {
    this.#listeners.add(listener);
    return async () => {
      this.#listeners.delete(listener);
    };
  }

  async grant(sessionId: string, grants: readonly string[]): Promise<void> {
    const held = this.#grants.get(sessionId) ?? new Set<string>();
    for (const grant of grants) held.add(grant);
    this.#grants.set(sessionId, held);
  }

  async granted(sessionId: string, grants: readonly string[]): Promise<boolean> {
    const held = this.#grants.get(sessionId);
    return grants.every((grant) => held?.has(grant) === true);
  }

  #live(approvalId: string): Waiting<D> | undefined {
    const waiting = this.#waiting.get(approvalId);
    if (waiting !== undefined && waiting.expires <= this.#now()) {
      this.#waiting.delete(approvalId);
      return undefined;
    }
    return waiting;
  }
}
