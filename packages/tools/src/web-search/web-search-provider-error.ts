import { ToolbusError } from '@toolbus/spec';

/**
 * Why a provider gave no results. `provider_unauthorized`: the key was refused (401/403), a configuration problem
 * only an administrator can fix. `provider_rate_limited`: 429. `provider_unavailable`: 5xx (after one retry) or the
 * network. `provider_bad_response`: an answer that is not the documented format, or an error in a 200 body.
 */
export type WebSearchProviderErrorCode =
  | 'provider_unauthorized'
  | 'provider_rate_limited'
  | 'provider_unavailable'
  | 'provider_bad_response';

/** Options for {@link WebSearchProviderError}. */
export interface WebSearchProviderErrorOptions {
  readonly code: WebSearchProviderErrorCode;
  /** Written for the model and for logs; never holds the API key or the request URL (Google puts the key there). */
  readonly message: string;
  readonly provider: string;
  readonly status?: number;
  /** From a 429's `Retry-After`, in seconds. */
  readonly retryAfterSeconds?: number | undefined;
  readonly cause?: unknown;
}

/** A web search provider refused or failed one query. */
export class WebSearchProviderError extends ToolbusError<WebSearchProviderErrorCode> {
  static override readonly errorName = 'WebSearchProviderError';

  readonly provider: string;
  readonly status: number | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(options: WebSearchProviderErrorOptions) {
    super(options);
    this.provider = options.provider;
    this.status = options.status;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
