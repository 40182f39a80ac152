import type { ApprovalDecision } from '@toolbus/egress';

const decisions: readonly ApprovalDecision[] = ['approved', 'approved_for_session', 'rejected'];

/** The decision `value` names, or undefined for anything else (a value read back from Redis). */
export function asDecision(value: unknown): ApprovalDecision | undefined {
  return decisions.find((decision) => decision === value);
}

/** An `{approvalId, decision}` message from a Redis channel; undefined for anything else (not ours: ignored). */
export function parseDecisionMessage<D extends string = ApprovalDecision>(
  message: string,
  decode: (value: unknown) => D | undefined = asDecision as (value: unknown) => D | undefined,
): { approvalId: string; decision: D } | undefined {
  try {
    const value = JSON.parse(message) as { approvalId?: unknown; decision?: unknown };
    const decision = decode(value.decision);
    if (typeof value.approvalId === 'string' && decision !== undefined) {
      return { approvalId: value.approvalId, decision };
    }
  } catch {
    return undefined;
  }
  return undefined;
}
