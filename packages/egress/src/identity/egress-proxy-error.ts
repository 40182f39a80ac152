import { ToolbusError } from '@toolbus/spec';

/**
 * Every code an egress proxy start-up or operation failure carries:
 * - `ca_store_damaged`: the CA store exists but is unreadable, incomplete or mismatched; an operator must repair
 *   or delete it (it is never regenerated over, or sandboxes trusting the old CA would silently break);
 * - `ca_invalid`: the stored CA parses but is expired, not yet valid, or not a CA;
 * - `identity_not_synced`: the identity source did not sync in time, so the proxy refuses to serve.
 */
export const egressProxyErrorCodes = ['ca_store_damaged', 'ca_invalid', 'identity_not_synced'] as const;

/** One of {@link egressProxyErrorCodes}. */
export type EgressProxyErrorCode = (typeof egressProxyErrorCodes)[number];

/** The egress proxy cannot start or continue for a stated reason. Messages never hold key material. */
export class EgressProxyError extends ToolbusError<EgressProxyErrorCode> {
  static override readonly errorName = 'EgressProxyError';
}
