import type { IncomingMessage, ServerResponse } from 'node:http';
import { omitUndefined } from '@toolbus/spec';
import type { GatewayContext } from './gateway-context.ts';
import type { GatewayLogEvent } from './gateway-options.ts';

// Every request the gateway answers has one log line. A route that reaches an upstream writes it, with what
// recovery did; a request refused before that (a wrong key, the rate limit, a body too large or not JSON, no such
// route) or answered without one (the model list) gets its line here, when its response closes. `/health` is
// polled by load balancers every few seconds, so it has none.

/** What the gateway knows of a request, for the line of one no route logged. */
export interface RequestSeen {
  readonly path: string;
  readonly started: number;
  /** Whether a route logged the request. */
  logged: boolean;
  /** Who sent it, once the key was checked (never the key). */
  callerId: string | undefined;
}

/** Starts watching a request: the context its route reads (whose log notes a route's line) and what is seen. */
export function watchRequest(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
): { seen: RequestSeen; context: GatewayContext } {
  const seen: RequestSeen = {
    path: (request.url ?? '/').split('?')[0] ?? '/',
    started: performance.now(),
    logged: false,
    callerId: undefined,
  };
  response.once('close', () => {
    if (!seen.logged && seen.path !== '/health') context.log(unloggedRequestEvent(request, response, seen));
  });
  // A route's line names what it did (upstream, model, recovery); the route, the caller and the time are the
  // request's, written here for every line alike.
  const log = (event: GatewayLogEvent): void => {
    if (event.event !== 'request') {
      context.log(event);
      return;
    }
    seen.logged = true;
    const { event: name, ...fields } = event;
    context.log({ event: name, route: seen.path, ...fields, ...requestFigures(seen) });
  };
  return { seen, context: { ...context, log } };
}

function unloggedRequestEvent(
  request: IncomingMessage,
  response: ServerResponse,
  seen: RequestSeen,
): GatewayLogEvent {
  const answered = response.writableFinished;
  return {
    event: 'request',
    route: seen.path,
    method: request.method,
    status: answered ? response.statusCode : 499,
    outcome: !answered
      ? 'client-closed'
      : response.statusCode < 400
        ? 'answered'
        : (refusals[response.statusCode] ?? 'refused'),
    ...requestFigures(seen),
  };
}

// Who sent the request (never the key) and how long it took, from its arrival.
function requestFigures(seen: RequestSeen): { readonly caller?: string; readonly ms: number } {
  return { ...omitUndefined({ caller: seen.callerId }), ms: Math.round(performance.now() - seen.started) };
}

/** What a refusal is called in the log, by its status. */
const refusals: Readonly<Record<number, string>> = {
  400: 'invalid-request',
  401: 'unauthorized',
  404: 'no-route',
  405: 'wrong-method',
  413: 'too-large',
  415: 'not-json',
  429: 'rate-limited',
  500: 'internal-error',
};
