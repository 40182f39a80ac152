import type { Agent as HttpAgent, IncomingMessage, ServerResponse } from 'node:http';
import { request as httpRequest } from 'node:http';
import { type Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type Socket } from 'node:net';
import { omitUndefined } from '@toolbus/spec';
import { decideEgress } from '../decision/decide-egress.ts';
import { maxEgressBodyBytes } from '../decision/egress-context.ts';
import type { EgressForward } from '../decision/egress-decision.ts';
import type { EgressLogger } from '../decision/egress-logger.ts';
import { endToEndHeaders } from './hop-by-hop-headers.ts';
import { blockHeaders, sendBlock, tokenRefusalBody } from './proxy-answers.ts';
import type { ProxyConnections } from './proxy-connections.ts';
import { readRequestBody } from './read-request-body.ts';

/** The upstream connection pools, one per scheme. */
export interface UpstreamAgents {
  readonly http: HttpAgent;
  readonly https: HttpsAgent;
}

/**
 * Handles one proxied HTTP request (absolute-form plain HTTP, or a request inside a CONNECT tunnel): refuses it
 * while the proxy does not serve or its token is refused, asks {@link decideEgress}, and forwards an allowed one.
 */
export async function handleProxyRequest(
  connections: ProxyConnections,
  agents: UpstreamAgents,
  exchange: { readonly request: IncomingMessage; readonly response: ServerResponse },
): Promise<void> {
  const { request, response } = exchange;
  const { log } = connections;
  const socketMeta = connections.meta.get(request.socket as Socket);
  if (!connections.ready()) {
    sendBlock(response, 503, {
      error: 'proxy_unavailable',
      message:
        'The egress proxy is not serving right now (starting or shutting down). Retry in a few seconds.',
    });
    return;
  }
  const refusal = connections.tokenRefusal(socketMeta);
  if (refusal !== undefined) {
    log('egress_token_refused', [['reason', refusal]]);
    response.writeHead(407, { ...blockHeaders, 'proxy-authenticate': 'Toolbus-Egress-Token' });
    response.end(JSON.stringify(tokenRefusalBody(refusal)));
    return;
  }
  const tunnel = socketMeta?.tunnel;
  const url =
    tunnel === undefined
      ? (request.url ?? '')
      : `${tunnel.scheme}://${tunnel.authority}${request.url ?? '/'}`;
  if (tunnel === undefined && !/^http:\/\//i.test(url)) {
    // Origin-form without a tunnel, or https:// in absolute form (clients CONNECT for that).
    sendBlock(response, 400, {
      error: 'bad_proxy_request',
      message: 'Send plain HTTP in absolute form (GET http://host/path) and HTTPS through CONNECT.',
    });
    return;
  }
  const read = await readRequestBody(request, maxEgressBodyBytes);
  const decision = await decideEgress(
    {
      method: request.method ?? 'GET',
      url,
      headers: endToEndHeaders(request.rawHeaders),
      ...('body' in read ? { body: read.body } : { bodyLength: read.bodyLength }),
      connection: socketMeta?.connection,
      ...omitUndefined({ connectSessionTag: tunnel?.sessionTag }),
    },
    connections.context,
  );
  if (decision.outcome === 'blocked') {
    sendBlock(response, 403, decision.body);
    return;
  }
  await forwardUpstream({
    agents,
    log,
    response,
    method: request.method ?? 'GET',
    target: new URL(url),
    body: 'body' in read ? read.body : new Uint8Array(),
    decision,
  });
}

/**
 * Sends an allowed request to the checked address and pipes the answer back. It dials the checked address but
 * verifies the certificate for the name the sandbox asked for, so DNS cannot redirect it after the check.
 */
async function forwardUpstream(options: {
  readonly agents: UpstreamAgents;
  readonly log: EgressLogger;
  readonly response: ServerResponse;
  readonly method: string;
  readonly target: URL;
  readonly body: Uint8Array;
  readonly decision: EgressForward;
}): Promise<void> {
  const { target, body, decision, response, method } = options;
  const flat: string[] = ['Host', target.host];
  for (const [name, value] of decision.headers) flat.push(name, value);
  if (body.length > 0 || !['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(method)) {
    flat.push('Content-Length', String(body.length));
  }
  const secure = target.protocol === 'https:';
  const hostName = target.hostname.replace(/^\[|\]$/g, '');
  const upstream = (secure ? httpsRequest : httpRequest)({
    host: decision.address,
    port: decision.port,
    method,
    path: `${target.pathname}${target.search}`,
    headers: flat,
    setHost: false,
    agent: secure ? options.agents.https : options.agents.http,
    ...(secure && isIP(hostName) === 0 ? { servername: hostName } : {}),
  });
  // Small request/response messages: send them at once instead of waiting for more data (Nagle).
  upstream.on('socket', (socket) => socket.setNoDelay(true));
  await new Promise<void>((resolve) => {
    upstream.on('response', (upstreamResponse) => {
      const contentLength = upstreamResponse.headers['content-length'];
      const flatResponse: string[] = [];
      for (const [name, value] of endToEndHeaders(upstreamResponse.rawHeaders))
        flatResponse.push(name, value);
      if (contentLength !== undefined) flatResponse.push('Content-Length', contentLength);
      response.writeHead(upstreamResponse.statusCode ?? 502, flatResponse);
      upstreamResponse.pipe(response);
      upstreamResponse.on('end', resolve);
      upstreamResponse.on('error', () => {
        response.destroy();
        resolve();
      });
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      const tlsFailure = /CERT|SSL|TLS|self.signed|altname/i.test(`${error.code ?? ''} ${error.message}`);
      options.log('egress_upstream_error', [
        ['host', target.host],
        ['code', error.code ?? 'unknown'],
        ['tls', tlsFailure],
      ]);
      sendBlock(response, 502, {
        error: tlsFailure ? 'upstream_certificate_invalid' : 'upstream_unreachable',
        message: tlsFailure
          ? 'The upstream server presented a certificate that does not verify for this host. Do not retry.'
          : 'The upstream server could not be reached. Retrying later may help.',
      });
      resolve();
    });
    upstream.end(body);
  });
}
