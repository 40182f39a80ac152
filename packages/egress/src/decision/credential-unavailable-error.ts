import { hasErrorMarker, ToolbusError } from '@toolbus/spec';

const marker = Symbol.for('toolbus.error.CredentialUnavailableError');

/**
 * A credential resolver claimed a request but cannot produce its credential (not connected, missing user,
 * unfilled template value). `sandboxDetail` goes into the 403 body, so it must never hold a secret or an id.
 */
export class CredentialUnavailableError extends ToolbusError {
  override readonly code = 'credential_unavailable' as const;
  readonly sandboxDetail: string;
  readonly [marker] = true;

  constructor(sandboxDetail: string, options: { readonly cause?: unknown } = {}) {
    super({ code: 'credential_unavailable', message: sandboxDetail, cause: options.cause });
    this.name = 'CredentialUnavailableError';
    this.sandboxDetail = sandboxDetail;
  }

  static override isInstance(error: unknown): error is CredentialUnavailableError {
    return hasErrorMarker(error, marker);
  }
}
