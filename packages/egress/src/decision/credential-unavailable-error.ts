import { ToolbusError } from '@toolbus/spec';

/**
 * A credential resolver claimed a request but cannot produce its credential (not connected, missing user,
 * unfilled template value). `sandboxDetail` goes into the 403 body, so it must never hold a secret or an id.
 */
export class CredentialUnavailableError extends ToolbusError<'credential_unavailable'> {
  static override readonly errorName = 'CredentialUnavailableError';

  readonly sandboxDetail: string;

  constructor(sandboxDetail: string, options: { readonly cause?: unknown } = {}) {
    super({ code: 'credential_unavailable', message: sandboxDetail, cause: options.cause });
    this.sandboxDetail = sandboxDetail;
  }
}
