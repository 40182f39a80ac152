import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './http-error.ts';
import type { InterpreterService } from './interpreter-service.ts';
import { isUuid } from './request-validation.ts';

/** One request as a handler sees it: the raw request and response, the parsed URL and the path's ids. */
export interface RouteCall {
  readonly service: InterpreterService;
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly url: URL;
  /** The `:name` segments of the route's path, each already checked to be a uuid. */
  readonly params: Readonly<Record<string, string>>;
}

/** A path of the API and its handler per method. */
export interface Route {
  /** Segments separated by '/', a segment `:name` standing for an id (a lowercase uuid). */
  readonly path: string;
  readonly methods: Readonly<Partial<Record<string, (call: RouteCall) => Promise<void>>>>;
}

function matchPath(pattern: string, segments: readonly string[]): Record<string, string> | undefined {
  const parts = pattern.split('/').filter(Boolean);
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of parts.entries()) {
    const segment = segments[index] ?? '';
    if (part.startsWith(':')) params[part.slice(1)] = segment;
    else if (part !== segment) return undefined;
  }
  return params;
}

/**
 * Finds the handler for a request: 404 for a path no route has, 405 (with `Allow`) for a method the route lacks,
 * 400 for an id that is not a uuid; in that order, so a wrong method is reported before a wrong id.
 */
export function resolveRoute(
  routes: readonly Route[],
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): { handler: (call: RouteCall) => Promise<void>; params: Record<string, string> } {
  const method = request.method ?? 'GET';
  const segments = url.pathname.split('/').filter(Boolean);
  for (const route of routes) {
    const params = matchPath(route.path, segments);
    if (params === undefined) continue;
    const handler = route.methods[method];
    if (handler === undefined) {
      const allowed = Object.keys(route.methods);
      response.setHeader('allow', allowed.join(', '));
      throw new HttpError({
        status: 405,
        code: 'method_not_allowed',
        message: `use ${allowed.join(' or ')}`,
      });
    }
    if (!Object.values(params).every(isUuid)) {
      throw new HttpError({ status: 400, code: 'invalid_id', message: 'ids are lowercase uuids' });
    }
    return { handler, params };
  }
  throw new HttpError({ status: 404, code: 'not_found', message: `no route ${method} ${url.pathname}` });
}
