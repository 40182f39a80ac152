import type { ActionPolicy } from '@toolbus/spec';

/**
 * What happens to an action (spec's {@link ActionPolicy}, which storage keeps on connected apps): `ALWAYS` forwards
 * it with credentials, `ASK` waits for the user's approval, `DENY` refuses it. Stricter policies win when a request
 * carries several actions.
 */
export type EgressPolicy = ActionPolicy;

/** One action a request performs, with the policy that governs it. */
export interface EgressAction {
  /** `app.<action>` for a connected app's action, `mcp.<tool>` for an MCP tool call, `app.domain` when unmatched. */
  readonly type: string;
  readonly policy: EgressPolicy;
  /** How many times the request performs it (a JSON-RPC batch can call one tool several times). */
  readonly count: number;
}

const strictness: Readonly<Record<EgressPolicy, number>> = { DENY: 2, ASK: 1, ALWAYS: 0 };

/** The actions sorted strictest first (DENY, then ASK, then ALWAYS); the first one governs the request. */
export function sortActionsStrictestFirst(actions: readonly EgressAction[]): EgressAction[] {
  return [...actions].sort((left, right) => strictness[right.policy] - strictness[left.policy]);
}
