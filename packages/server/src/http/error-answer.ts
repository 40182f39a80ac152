import { GuardedFetchError } from '@toolbus/core';
import { omitUndefined, ToolbusError } from '@toolbus/spec';
import { StorageError } from '@toolbus/storage';
import { ServerError } from './server-error.ts';

/** What a failed request is answered with: the status, and the body's `error` fields. */
export interface ErrorAnswer {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly field?: string;
  readonly retryAfterSeconds?: number;
}

/**
 * The status of each `ToolbusError` code that is a refusal, not a bug: the request (or what it points at) broke a
 * rule, or something the server depends on was missing or failed. The answer keeps the code, so the client reads
 * which rule. Grouped by meaning:
 * - 400: the input itself is wrong;
 * - 404: what it names does not exist;
 * - 409: it conflicts with what exists, or needs a step first (signing in to an OAuth MCP server);
 * - 422: what it points at is refused by a rule (SSRF guard, URL scheme, an unusable document or bundle);
 * - 424: a server it depends on could not be started or reached, or refused it;
 * - 429 / 503 / 504: too many requests, a dependency unavailable, a dependency too slow.
 * A code not listed is answered 500 with nothing of the error shown: that is a bug to fix (and map here).
 */
const statusOfCode: Readonly<Record<string, number>> = {
  invalid_input: 400,
  invalid_arguments: 400,
  invalid_template: 400,
  config_invalid: 400,
  config_invalid_value: 400,
  not_found: 404,
  skill_not_found: 404,
  persona_not_found: 404,
  file_not_found: 404,
  blob_not_found: 404,
  conflict: 409,
  skill_exists: 409,
  findings_not_accepted: 409,
  mcp_authorization_required: 409,
  mcp_authentication_required: 409,
  mcp_oauth_not_configured: 409,
  mcp_oauth_state_mismatch: 409,
  ssrf_blocked: 422,
  host_unresolvable: 422,
  credentials_in_url: 422,
  scheme_not_allowed: 422,
  too_many_redirects: 422,
  redirect_body_not_replayable: 422,
  mcp_invalid_config: 422,
  openapi_document_invalid: 422,
  openapi_invalid: 422,
  openapi_version_unsupported: 422,
  openapi_base_url_invalid: 422,
  openapi_no_server: 422,
  openapi_redirect_refused: 422,
  openapi_too_many_redirects: 422,
  mcp_connection_failed: 424,
  mcp_tool_error: 424,
  openapi_http_error: 424,
  rate_limited: 429,
  unavailable: 503,
  redis_unavailable: 503,
  provider_unavailable: 503,
  memory_unavailable: 503,
  code_interpreter_unreachable: 503,
  request_timeout: 504,
};

const internal: ErrorAnswer = {
  status: 500,
  code: 'internal_error',
  message: 'The server failed; see its log.',
};

/**
 * How the server answers a failed request: its own refusals as they are; storage refusals by their code; any other
 * `ToolbusError` whose code is a known refusal as that status with its code and message (those messages are written
 * to be shown, never holding a secret); a guarded-fetch refusal found anywhere in the cause chain wins, as it names
 * the rule. Anything else is a 500 that shows nothing.
 */
export function toErrorAnswer(error: unknown): ErrorAnswer {
  if (ServerError.isInstance(error)) {
    return {
      status: error.status,
      code: error.code,
      message: error.message,
      ...omitUndefined({ field: error.field, retryAfterSeconds: error.retryAfterSeconds }),
    };
  }
  if (StorageError.isInstance(error)) {
    const mapped = { not_found: 'not_found', conflict: 'conflict', invalid_input: 'invalid_request' }[
      error.code as string
    ];
    const status = { not_found: 404, conflict: 409, invalid_request: 400 }[mapped ?? ''];
    return mapped && status ? { status, code: mapped, message: error.message } : internal;
  }
  const guarded = guardRefusal(error);
  if (guarded) return { status: 422, code: guarded.code, message: guarded.message };
  if (ToolbusError.isInstance(error)) {
    const status = statusOfCode[error.code];
    if (status !== undefined) return { status, code: error.code, message: error.message };
  }
  return internal;
}

/** A guarded-fetch refusal that `error` is or was caused by (the MCP and OpenAPI clients wrap it). */
export function guardRefusal(error: unknown): GuardedFetchError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (GuardedFetchError.isInstance(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
