import { ToolbusError, type ToolbusErrorOptions } from '@toolbus/spec';
import type { AddressCategory } from './classify-address.ts';

/**
 * Why the guard refused a request. `ssrf_blocked`: the host (by its name, or an address it resolved to) is not
 * allowed. `host_unresolvable`: the name resolved to nothing (or the resolver failed). `credentials_in_url`: the URL
 * carries a user name or password. `scheme_not_allowed`: not http: or https: (on the first request or a redirect).
 * `too_many_redirects`: over the redirect cap. `redirect_body_not_replayable`: a 307/308 redirect would need a
 * streamed body sent again.
 */
export type GuardedFetchErrorCode =
  | 'ssrf_blocked'
  | 'host_unresolvable'
  | 'credentials_in_url'
  | 'scheme_not_allowed'
  | 'too_many_redirects'
  | 'redirect_body_not_replayable';

/** Options for {@link GuardedFetchError}. */
export interface GuardedFetchErrorOptions extends ToolbusErrorOptions<GuardedFetchErrorCode> {
  /** The host of the refused request (never its path, query or headers: those may carry secrets). */
  readonly host?: string;
  /** The address that was refused, when the refusal was about an address. */
  readonly address?: string | undefined;
  readonly category?: AddressCategory | undefined;
}

/** The guarded fetch refused a request. Its `code` says which rule; its message names the host and the reason. */
export class GuardedFetchError extends ToolbusError<GuardedFetchErrorCode> {
  static override readonly errorName = 'GuardedFetchError';

  readonly host: string | undefined;
  readonly address: string | undefined;
  readonly category: AddressCategory | undefined;

  constructor(options: GuardedFetchErrorOptions) {
    super(options);
    this.host = options.host;
    this.address = options.address;
    this.category = options.category;
  }
}
