import type { EgressAction } from './egress-policy.ts';
import type { EgressIdentity } from './egress-request.ts';

/** What an approval is about: a connected app or an MCP server. */
export interface ApprovalTarget {
  readonly kind: 'app' | 'mcp';
  readonly id: string;
  readonly name: string;
}

/** One request waiting for the user's decision. Holds no credential and no query string. */
export interface ApprovalRequest {
  readonly approvalId: string;
  readonly sessionId: string;
  readonly identity: EgressIdentity;
  readonly target: ApprovalTarget;
  /** The actions needing approval (only ASK ones; DENY never reaches the broker). */
  readonly actions: readonly EgressAction[];
  readonly method: string;
  /** Scheme, host and path; the query is left out because it often carries secrets. */
  readonly destination: string;
  /** The decoded body for the approval card: a JSON object, `{batch: [...]}`, or form fields. */
  readonly payload?: unknown;
}

/** The user's answer: `approved_for_session` also grants every later identical action in the same session. */
export type ApprovalDecision = 'approved' | 'approved_for_session' | 'rejected';

/**
 * Where ASK requests wait for a person. The terminal (CLI) and the web server each implement it; the proxy
 * bounds the wait itself and aborts `signal` when it gives up, which must withdraw the question.
 */
export interface ApprovalBroker {
  /** True when an earlier session grant covers every action of the request (checked before asking). */
  hasGrant(request: ApprovalRequest): boolean | Promise<boolean>;
  requestApproval(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}

/** Options for {@link createInProcessApprovalBroker}. */
export interface InProcessApprovalBrokerOptions {
  /** Asks the person (a terminal prompt, a test's script); must settle or watch `signal`. */
  readonly ask: (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;
}

/** An {@link ApprovalBroker} in the same process, which also keeps the session's grants. */
export interface InProcessApprovalBroker extends ApprovalBroker {
  /** The approvals currently waiting, for a drain or a status line. */
  pending(): readonly ApprovalRequest[];
}

function grantKey(sessionId: string, target: ApprovalTarget, action: EgressAction): string {
  return `${sessionId}\u0000${target.kind}\u0000${target.id}\u0000${action.type}`;
}

/** A broker that asks through a callback and remembers session grants in memory. */
export function createInProcessApprovalBroker(
  options: InProcessApprovalBrokerOptions,
): InProcessApprovalBroker {
  const grants = new Set<string>();
  const waiting = new Map<string, ApprovalRequest>();
  return {
    hasGrant: (request) =>
      request.actions.every((action) => grants.has(grantKey(request.sessionId, request.target, action))),
    async requestApproval(request, signal) {
      waiting.set(request.approvalId, request);
      try {
        const decision = await options.ask(request, signal);
        if (decision === 'approved_for_session' && !signal.aborted) {
          for (const action of request.actions)
            grants.add(grantKey(request.sessionId, request.target, action));
        }
        return decision;
      } finally {
        waiting.delete(request.approvalId);
      }
    },
    pending: () => [...waiting.values()],
  };
}
