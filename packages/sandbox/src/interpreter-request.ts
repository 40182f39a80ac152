import {
  codeInterpreterEgressTagHeader,
  codeInterpreterEgressTokenHeader,
  codeInterpreterUserHeader,
  type ErrorResponse,
  type FetchFunction,
  omitUndefined,
} from '@toolbus/spec';
import { CodeInterpreterError } from './code-interpreter-error.ts';

/** What one request to the interpreter service takes. */
export interface InterpreterRequest {
  readonly baseUrl: string;
  readonly fetch: FetchFunction;
  readonly path: string;
  readonly method?: string;
  readonly json?: unknown;
  readonly body?: BodyInit;
  readonly headers?: Record<string, string>;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly userId?: string;
  readonly egressTag?: string;
  readonly egressToken?: string;
}

/**
 * Sends one request to the interpreter service, with the caller's identity headers, under a deadline. A failed
 * connection is `code_interpreter_unreachable` (the caller's own abort is rethrown as is), an error status is
 * `code_interpreter_http` with the service's error code.
 */
export async function sendInterpreterRequest(options: InterpreterRequest): Promise<Response> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const method = options.method ?? 'GET';
  const user = omitUndefined({
    [codeInterpreterUserHeader]: options.userId,
    [codeInterpreterEgressTagHeader]: options.egressTag,
    [codeInterpreterEgressTokenHeader]: options.egressToken,
  });
  let response: Response;
  try {
    response = await options.fetch(options.baseUrl + options.path, {
      method,
      signal,
      ...(options.json === undefined
        ? {
            ...omitUndefined({ body: options.body }),
            headers: { ...options.headers, ...user },
          }
        : { body: JSON.stringify(options.json), headers: { 'content-type': 'application/json', ...user } }),
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const reason = timeout.aborted
      ? `no answer within ${options.timeoutMs} ms`
      : 'the service is unreachable';
    throw new CodeInterpreterError({
      code: 'code_interpreter_unreachable',
      message: `${method} ${options.path.split('?')[0]}: ${reason}`,
      cause: error,
    });
  }
  if (!response.ok) {
    const text = await response.text().catch(() => '');
    let serviceCode: string | undefined;
    let detail = text.slice(0, 500);
    try {
      const parsed = JSON.parse(text) as Partial<ErrorResponse> & { detail?: unknown };
      if (parsed.error) {
        serviceCode = parsed.error.code;
        detail = parsed.error.message;
      } else if (parsed.detail !== undefined) {
        detail = typeof parsed.detail === 'string' ? parsed.detail : JSON.stringify(parsed.detail);
      }
    } catch {}
    throw new CodeInterpreterError({
      code: 'code_interpreter_http',
      message: `${method} ${options.path.split('?')[0]} answered ${response.status}: ${detail}`,
      status: response.status,
      ...omitUndefined({ serviceCode }),
    });
  }
  return response;
}

/** A JSON answer; one that is not JSON is `code_interpreter_protocol`. */
export async function readInterpreterJson<T>(response: Response): Promise<T> {
  try {
    return (await response.json()) as T;
  } catch (error) {
    throw new CodeInterpreterError({
      code: 'code_interpreter_protocol',
      message: `${response.url} did not answer JSON`,
      cause: error,
    });
  }
}
