// Calls to a test server's HTTP API as a user's key, the way a client does: JSON in, the raw response out.
import assert from 'node:assert/strict';
import { omitUndefined } from '@toolbus/spec';

/** Sends `body` (when given) as JSON to `baseUrl + path` with the key as its bearer token. */
export function callApi(options: {
  readonly baseUrl: string;
  readonly method: string;
  readonly path: string;
  readonly key: string | undefined;
  readonly body?: unknown;
  /** More request headers (a cookie, a CSRF token, an organisation). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** `manual` to see a redirect rather than follow it. */
  readonly redirect?: RequestRedirect | undefined;
}): Promise<Response> {
  const { body, key } = options;
  return fetch(`${options.baseUrl}${options.path}`, {
    method: options.method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...omitUndefined({ redirect: options.redirect }),
  });
}

/** The response's JSON body, after asserting its status (the body is the message when it differs). */
export async function jsonOf<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  assert.equal(response.status, status, text);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A caller bound to one server: `call(method, path, key, body?)`. */
export function apiCaller(baseUrl: () => string) {
  return (method: string, path: string, key: string | undefined, body?: unknown): Promise<Response> =>
    callApi({ baseUrl: baseUrl(), method, path, key, body });
}

/** Creates a user through the admin API and returns a new API key of theirs. */
export async function newUserKey(options: {
  readonly baseUrl: string;
  readonly adminKey: string;
  readonly email: string;
}): Promise<string> {
  const call = apiCaller(() => options.baseUrl);
  const user = await call('POST', '/v1/admin/users', options.adminKey, { email: options.email });
  assert.equal(user.status, 201);
  const { id } = (await user.json()) as { id: string };
  const created = await call('POST', `/v1/admin/users/${id}/keys`, options.adminKey, { name: 'test' });
  assert.equal(created.status, 201);
  return ((await created.json()) as { key: string }).key;
}
