import { readLimitedBody } from '@toolbus/spec';
import { OpenApiHttpError } from './openapi-http-error.ts';

const maxErrorBodyBytes = 2048;
const maxErrorBodyChars = 600;

/** Options for {@link httpErrorForModel}. */
export interface HttpErrorForModelOptions {
  readonly response: Response;
  readonly toolName: string;
  readonly method: string;
  readonly displayUrl: string;
  readonly redact: (text: string) => string;
}

/**
 * Turns a non-2xx answer into an {@link OpenApiHttpError}: the status and a short, redacted body for people, and
 * for the model what to do about it (fix which argument for a 4xx, wait for 429, not retry blindly for a 5xx).
 */
export async function httpErrorForModel(options: HttpErrorForModelOptions): Promise<OpenApiHttpError> {
  const { response } = options;
  const { bytes, truncated } = await readLimitedBody(response, maxErrorBodyBytes);
  let body = options.redact(new TextDecoder().decode(bytes)).replace(/\s+/g, ' ').trim();
  if (body.length > maxErrorBodyChars || truncated) body = `${body.slice(0, maxErrorBodyChars)}…`;
  const status = response.status;
  const statusText = response.statusText ? ` ${response.statusText}` : '';
  const shown = body === '' ? '(no body)' : body;
  return new OpenApiHttpError({
    status,
    message: `${options.method} ${options.displayUrl} failed with HTTP ${status}${statusText}: ${shown}`,
    modelMessage: `"${options.toolName}" failed: the API answered HTTP ${status}${statusText}. Response: ${shown}\n${advice(status)}`,
  });
}

function advice(status: number): string {
  if (status === 400 || status === 422) {
    return 'The request was rejected as invalid: check the arguments against the tool description (required fields, types, allowed values) and call again with corrected arguments.';
  }
  if (status === 401) {
    return 'Authentication failed. Credentials are configured by an administrator, not by you: do not retry with different arguments; tell the user the API credentials are missing or invalid.';
  }
  if (status === 403) {
    return 'Permission denied for this resource with the configured credentials. Do not retry the same call; try another resource or tell the user.';
  }
  if (status === 404) return 'Not found: check the path arguments (ids, names, spelling) and call again.';
  if (status === 405 || status === 409 || status === 412)
    return 'The resource is not in a state that allows this call; read it first, then decide.';
  if (status === 413) return 'The request is too large: send less data.';
  if (status === 429) return 'Rate limited: wait before calling this API again, and make fewer calls.';
  if (status >= 500) return 'The API itself failed. Retrying once later may help; do not retry repeatedly.';
  return 'Check the arguments and call again.';
}
