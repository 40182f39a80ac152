import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { omitUndefined } from '@toolbus/spec';
import { checkEgressDestination } from '../decision/check-egress-destination.ts';
import { proxyAuthorizationUser } from '../decision/decide-egress.ts';
import { type EgressBlockBody, egressBlockBody } from '../decision/egress-block.ts';
import { rawResponse, tokenRefusalBody } from './proxy-answers.ts';
import type { ProxyConnections } from './proxy-connections.ts';

/** The CONNECT target as `host:port`, or undefined when it is not one. */
export function parseAuthority(target: string | undefined): { host: string; port: number } | undefined {
  if (target === undefined) return undefined;
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/\s]+):(\d{1,5})$/.exec(target);
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return undefined;
  return { host: match[1], port };
}

/**
 * Opens a CONNECT tunnel once its destination is allowed and its sandbox identified, then hands what flows
 * through it to the inner HTTP server: TLS is intercepted with a leaf certificate for the host, plain HTTP is read
 * as is. Every request inside is decided on its own.
 */
export async function openConnectTunnel(
  connections: ProxyConnections,
  connect: { readonly request: IncomingMessage; readonly socket: Socket; readonly head: Buffer },
): Promise<void> {
  const { request, socket, head } = connect;
  const { context, log } = connections;
  const socketMeta = connections.meta.get(socket);
  const refuse = (status: number, body: EgressBlockBody | Record<string, string>): void => {
    socket.end(rawResponse(status, body));
  };
  const refusal = connections.tokenRefusal(socketMeta);
  if (refusal !== undefined) {
    log('egress_token_refused', [['reason', refusal]]);
    refuse(407, tokenRefusalBody(refusal));
    return;
  }
  if (!connections.ready()) {
    refuse(503, {
      error: 'proxy_unavailable',
      message: 'The egress proxy is not serving right now. Retry shortly.',
    });
    return;
  }
  const authority = parseAuthority(request.url);
  if (authority === undefined) {
    refuse(400, { error: 'bad_proxy_request', message: 'CONNECT needs a host:port target.' });
    return;
  }
  const destination = await checkEgressDestination({
    url: new URL(`https://${authority.host}:${authority.port}/`),
    resolveHost: context.resolveHost,
    policy: context.addressPolicy ?? { level: 'strict' },
    ...omitUndefined({ apiUrl: context.apiUrl }),
  });
  if (!destination.allowed) {
    log('egress_denied_internal_destination', [
      ['host', `${authority.host}:${authority.port}`],
      ['reason', destination.reason],
    ]);
    refuse(403, egressBlockBody('destination_blocked'));
    return;
  }
  const identity =
    socketMeta?.connection === undefined
      ? undefined
      : await Promise.resolve()
          .then(() => context.identify(socketMeta.connection ?? ''))
          .catch(() => undefined);
  if (identity === undefined) {
    log('identity_unknown_sandbox', [['host', `${authority.host}:${authority.port}`]]);
    refuse(403, egressBlockBody('unidentified_sandbox'));
    return;
  }
  const sessionTag = proxyAuthorizationUser(request.headers['proxy-authorization']);
  socket.setNoDelay(true);
  socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  await handOver(connections, {
    socket,
    head,
    connection: socketMeta?.connection,
    host: authority.host,
    tunnel: { authority: `${authority.host}:${authority.port}`, ...omitUndefined({ sessionTag }) },
  });
}

/** Hands an established tunnel's stream to the inner server: TLS behind a leaf certificate, or plain HTTP. */
async function handOver(
  connections: ProxyConnections,
  tunnel: {
    readonly socket: Socket;
    readonly head: Buffer;
    readonly connection: string | undefined;
    readonly host: string;
    readonly tunnel: { readonly authority: string; readonly sessionTag?: string };
  },
): Promise<void> {
  const { socket, head, connection } = tunnel;
  const first =
    head.length > 0
      ? head
      : await new Promise<Buffer | undefined>((resolve) => {
          socket.once('data', resolve);
          socket.once('end', () => resolve(undefined));
        });
  if (first === undefined) return;
  socket.pause();
  socket.unshift(first);
  if (first[0] !== 0x16) {
    // Not a TLS handshake: plain HTTP through the tunnel.
    connections.track(socket, { connection, tunnel: { ...tunnel.tunnel, scheme: 'http' } });
    connections.inner.emit('connection', socket);
    socket.resume();
    return;
  }
  const secureContext = await connections.leaves.secureContextFor(tunnel.host.replace(/^\[|\]$/g, ''));
  const tlsSocket = new TLSSocket(socket, { isServer: true, secureContext, ALPNProtocols: ['http/1.1'] });
  connections.track(tlsSocket as unknown as Socket, {
    connection,
    tunnel: { ...tunnel.tunnel, scheme: 'https' },
  });
  connections.inner.emit('connection', tlsSocket);
}
