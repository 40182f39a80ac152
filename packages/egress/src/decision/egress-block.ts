/**
 * Every reason the proxy refuses a request. Each becomes a 403 whose body says whether retrying can help:
 * - `destination_blocked`: the host is, or resolves to, an internal, metadata or otherwise non-public address, or
 *   does not resolve at all;
 * - `unidentified_sandbox`: the connection could not be tied to a known sandbox and its owner;
 * - `body_too_large`: the request body is larger than the cap, or was streamed without a length;
 * - `policy_denied`: an administrator's policy forbids this action, or the request could not be classified;
 * - `no_active_session`: the action needs approval but no session of this user is attached to the request;
 * - `user_rejected`: the user declined the approval;
 * - `not_authorized`: the approval expired before anyone decided;
 * - `credential_error`: the destination needs a credential that is missing or could not be produced;
 * - `internal_error`: the proxy failed while deciding.
 */
export const egressBlockCodes = [
  'destination_blocked',
  'unidentified_sandbox',
  'body_too_large',
  'policy_denied',
  'no_active_session',
  'user_rejected',
  'not_authorized',
  'credential_error',
  'internal_error',
] as const;

/** One of {@link egressBlockCodes}. */
export type EgressBlockCode = (typeof egressBlockCodes)[number];

/** The JSON body of every 403 the proxy sends: never a secret, never an internal id. */
export interface EgressBlockBody {
  readonly error: EgressBlockCode;
  /** Prose for the agent, saying whether a retry can help. */
  readonly message: string;
  /** Request-specific prose (for instance what a credential resolver reported). */
  readonly detail?: string;
}

const messages: Readonly<Record<EgressBlockCode, string>> = {
  destination_blocked:
    'This destination is outside the sandbox network boundary (internal, metadata or unresolvable address). This is a fixed boundary: do not retry.',
  unidentified_sandbox:
    'The proxy could not identify this sandbox, so it refuses all traffic from it. Retrying will not help until the sandbox is restarted.',
  body_too_large:
    'The request body is larger than 32 MiB or was sent without a length. Send a smaller body with a Content-Length; retrying the same request will fail again.',
  policy_denied:
    'An administrator policy forbids this action, or the request could not be classified. Do not retry; ask the user to change the policy if it is needed.',
  no_active_session:
    'This action needs the user approval, but no active session of this user is attached to the request. Do not retry.',
  user_rejected: 'The user rejected this action. Do not retry it; ask the user what to do instead.',
  not_authorized:
    'Nobody approved this action in time, so it expired. You may retry once if the user is expected to be present.',
  credential_error:
    'The credential for this destination is missing or could not be produced. Retrying will not help until the user connects the app again.',
  internal_error: 'The egress proxy failed while checking this request. Retrying once may help.',
};

/** The 403 body for `code`, with optional request-specific detail. */
export function egressBlockBody(code: EgressBlockCode, detail?: string): EgressBlockBody {
  return detail === undefined
    ? { error: code, message: messages[code] }
    : { error: code, message: messages[code], detail };
}
