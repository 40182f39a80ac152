import { randomUUID } from 'node:crypto';
import {
  createServer,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createServer as createNetServer, isIP, type Server, type Socket } from 'node:net';
import { rootCertificates, TLSSocket } from 'node:tls';
import { omitUndefined } from '@toolbus/spec';
import { checkEgressDestination } from '../decision/check-egress-destination.ts';
import { decideEgress, proxyAuthorizationUser } from '../decision/decide-egress.ts';
import { type EgressBlockBody, egressBlockBody } from '../decision/egress-block.ts';
import { type EgressContext, maxEgressBodyBytes } from '../decision/egress-context.ts';
import type { EgressIdentity } from '../decision/egress-request.ts';
import type { CertificateAuthority } from './certificate-authority.ts';
import { type EgressRunTokenRefusal, verifyEgressRunToken } from './egress-run-token.ts';
import { type HealthEndpoint, listenHealthEndpoint } from './health-endpoint.ts';
import { endToEndHeaders } from './hop-by-hop-headers.ts';
import { createLeafCertificateCache } from './leaf-certificate-cache.ts';
import { readRequestBody } from './read-request-body.ts';
import { readTokenPreamble } from './read-token-preamble.ts';

/** Options for {@link startEgressProxy}. */
export interface EgressProxyOptions {
  /** The decision context; its `signal` is replaced by the proxy's own drain signal. */
  readonly context: EgressContext;
  readonly authority: CertificateAuthority;
  /** Extra CA certificates (PEM) trusted for upstream servers, on top of the system roots. */
  readonly upstreamTrustedCa?: readonly string[];
  /** Whether the identity source has synced; the proxy refuses traffic (503) until it has. Always true when absent. */
  readonly isIdentitySynced?: () => boolean;
  /** How long a drain waits for in-flight requests before closing their sockets; 10 s when absent. */
  readonly drainTimeoutMs?: number;
  /**
   * Accept runs' signed egress tokens on TCP listeners (an interpreter relaying many users' runs from one pod):
   * a connection that begins with a relay's token line is identified by the verified token, never by its address,
   * and one whose token is forged, malformed or expired is refused with a 407. Connections without the line are
   * identified by `context.identify` as before (pod labels). Absent: the line is not recognised at all.
   */
  readonly runTokens?: {
    /** The key tokens are signed with ({@link deriveEgressTokenKey}). */
    readonly key: Uint8Array;
    readonly now?: () => number;
  };
}

/** Where one listener of the proxy accepts sandbox connections. */
export interface EgressListenOptions {
  /** A Unix socket path (one per sandbox run), or a TCP port with `host`. */
  readonly path?: string;
  readonly port?: number;
  readonly host?: string;
  /**
   * The identity key of every connection on this listener (the run it was made for). Absent: the connection's
   * source address is its key, as when the proxy is its own service.
   */
  readonly connection?: string;
}

/** One open listener. */
export interface EgressListener {
  /** The TCP port, when listening on TCP. */
  readonly port?: number;
  readonly path?: string;
  close(): Promise<void>;
}

/** A running egress proxy. */
export interface EgressProxy {
  listen(options: EgressListenOptions): Promise<EgressListener>;
  /** Serves `GET /healthz` (200 `ok` when ready, else 503) on its own port; returns the port. */
  listenHealth(options: { readonly port?: number; readonly host?: string }): Promise<number>;
  /** True while serving: identity synced and not draining. */
  ready(): boolean;
  /** Stops accepting, expires parked approvals, lets in-flight requests finish (capped), closes everything. */
  drain(): Promise<void>;
}

interface SocketMeta {
  readonly connection: string | undefined;
  /** Why the connection's egress token was refused: every request on it is answered 407. */
  readonly tokenRefusal?: EgressRunTokenRefusal;
  /** For connections inside a CONNECT tunnel: where the tunnel goes and in which scheme. */
  readonly tunnel?: {
    readonly authority: string;
    readonly scheme: 'https' | 'http';
    readonly sessionTag?: string;
  };
}

const blockHeaders = { 'content-type': 'application/json', 'cache-control': 'no-store' };

/** Connection keys of token-identified connections; never a source address (those have no such prefix). */
const tokenConnectionPrefix = 'egress-token:';

/** How long a new TCP connection may take to send its first line before it is dropped. */
const preambleTimeoutMs = 10_000;

/** A whole HTTP response with a JSON body, for a socket the HTTP server does not own (CONNECT, token line). */
function rawResponse(status: number, body: EgressBlockBody | Record<string, string>): string {
  const text = JSON.stringify(body);
  const challenge = status === 407 ? 'Proxy-Authenticate: Toolbus-Egress-Token\r\n' : '';
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json\r\n${challenge}Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
}

/** The 407 body of a refused token: says what happened, never the token. */
function tokenRefusalBody(reason: EgressRunTokenRefusal): Record<string, string> {
  return {
    error: 'egress_token_refused',
    reason,
    message:
      reason === 'expired'
        ? "This run's egress identity expired, so the proxy refuses its traffic. Retrying in this run will not help; run the code again."
        : "This run's egress identity could not be verified, so the proxy refuses its traffic. Do not retry.",
  };
}

function sendBlock(
  response: ServerResponse,
  status: number,
  body: EgressBlockBody | Record<string, string>,
): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(status, blockHeaders);
  response.end(JSON.stringify(body));
}

/** The CONNECT target as `host:port`, or undefined when it is not one. */
function parseAuthority(target: string | undefined): { host: string; port: number } | undefined {
  if (target === undefined) return undefined;
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/\s]+):(\d{1,5})$/.exec(target);
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return undefined;
  return { host: match[1], port };
}

/**
 * Starts the egress proxy: an HTTP proxy (CONNECT tunnels and absolute-form plain HTTP) that intercepts TLS
 * with certificates from the deployment's CA, asks {@link decideEgress} about every request, and forwards
 * allowed ones to the checked address (keeping SNI and certificate verification for the name, so DNS cannot
 * redirect the connection after the check). Blocks are 403s with a JSON body for the agent.
 */
export function startEgressProxy(options: EgressProxyOptions): EgressProxy {
  const drainController = new AbortController();
  const now = options.runTokens?.now ?? Date.now;
  /** Verified identities of token connections, by connection key, until their socket closes. */
  const tokenIdentities = new Map<string, { identity: EgressIdentity; expiresAtMs: number }>();
  const context: EgressContext = {
    ...options.context,
    signal: drainController.signal,
    identify: (connection) => {
      if (!connection.startsWith(tokenConnectionPrefix)) return options.context.identify(connection);
      const entry = tokenIdentities.get(connection);
      return entry === undefined || entry.expiresAtMs <= now() ? undefined : entry.identity;
    },
  };
  /** Why a request on this connection is refused for its token (forged, malformed, or expired since). */
  const tokenRefusal = (socketMeta: SocketMeta | undefined): EgressRunTokenRefusal | undefined => {
    if (socketMeta?.tokenRefusal !== undefined) return socketMeta.tokenRefusal;
    const connection = socketMeta?.connection;
    if (connection === undefined || !connection.startsWith(tokenConnectionPrefix)) return undefined;
    const entry = tokenIdentities.get(connection);
    return entry === undefined || entry.expiresAtMs <= now() ? 'expired' : undefined;
  };
  const log = context.logger ?? (() => {});
  const leaves = createLeafCertificateCache(options.authority);
  const upstreamCa = [...rootCertificates, ...(options.upstreamTrustedCa ?? [])];
  const httpsAgent = new HttpsAgent({ keepAlive: true, ca: upstreamCa });
  const httpAgent = new HttpAgent({ keepAlive: true });
  const meta = new WeakMap<Socket, SocketMeta>();
  const sockets = new Set<Socket>();
  const servers = new Set<Server>();
  const inFlight = new Set<Promise<void>>();
  const healthEndpoints: HealthEndpoint[] = [];
  let draining = false;
  const ready = (): boolean => !draining && (options.isIdentitySynced?.() ?? true);

  const track = (socket: Socket, socketMeta: SocketMeta): void => {
    meta.set(socket, socketMeta);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const socketMeta = meta.get(request.socket as Socket);
    if (!ready()) {
      sendBlock(response, 503, {
        error: 'proxy_unavailable',
        message:
          'The egress proxy is not serving right now (starting or shutting down). Retry in a few seconds.',
      });
      return;
    }
    const refusal = tokenRefusal(socketMeta);
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
    const headers = endToEndHeaders(request.rawHeaders);
    const decision = await decideEgress(
      {
        method: request.method ?? 'GET',
        url,
        headers,
        ...('body' in read ? { body: read.body } : { bodyLength: read.bodyLength }),
        connection: socketMeta?.connection,
        ...omitUndefined({ connectSessionTag: tunnel?.sessionTag }),
      },
      context,
    );
    if (decision.outcome === 'blocked') {
      sendBlock(response, 403, decision.body);
      return;
    }
    const target = new URL(url);
    const body = 'body' in read ? read.body : new Uint8Array();
    const flat: string[] = ['Host', target.host];
    for (const [name, value] of decision.headers) flat.push(name, value);
    if (body.length > 0 || !['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(request.method ?? 'GET')) {
      flat.push('Content-Length', String(body.length));
    }
    const secure = target.protocol === 'https:';
    const hostName = target.hostname.replace(/^\[|\]$/g, '');
    const upstream = (secure ? httpsRequest : httpRequest)({
      host: decision.address,
      port: decision.port,
      method: request.method ?? 'GET',
      path: `${target.pathname}${target.search}`,
      headers: flat,
      setHost: false,
      agent: secure ? httpsAgent : httpAgent,
      // Dial the checked address but verify the certificate for the name the sandbox asked for.
      ...(secure && isIP(hostName) === 0 ? { servername: hostName } : {}),
    });
    // Small request/response messages: send them at once instead of waiting for more data (Nagle).
    upstream.on('socket', (socket) => socket.setNoDelay(true));
    await new Promise<void>((resolve) => {
      upstream.on('response', (upstreamResponse) => {
        const responseHeaders = endToEndHeaders(upstreamResponse.rawHeaders);
        const contentLength = upstreamResponse.headers['content-length'];
        const flatResponse: string[] = [];
        for (const [name, value] of responseHeaders) flatResponse.push(name, value);
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
        log('egress_upstream_error', [
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

  const inner = createServer({ keepAliveTimeout: 30_000 }, (request, response) => {
    const task = handle(request, response).catch(() =>
      sendBlock(response, 403, egressBlockBody('internal_error')),
    );
    inFlight.add(task);
    void task.finally(() => inFlight.delete(task));
  });

  async function onConnect(request: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    const socketMeta = meta.get(socket);
    const refuse = (status: number, body: EgressBlockBody | Record<string, string>): void => {
      socket.end(rawResponse(status, body));
    };
    const refusal = tokenRefusal(socketMeta);
    if (refusal !== undefined) {
      log('egress_token_refused', [['reason', refusal]]);
      refuse(407, tokenRefusalBody(refusal));
      return;
    }
    if (!ready()) {
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
    const hostName = authority.host.replace(/^\[|\]$/g, '');
    const tunnelBase = {
      authority: `${authority.host}:${authority.port}`,
      ...omitUndefined({ sessionTag }),
    };
    if (first[0] !== 0x16) {
      // Not a TLS handshake: plain HTTP through the tunnel.
      track(socket, { connection: socketMeta?.connection, tunnel: { ...tunnelBase, scheme: 'http' } });
      inner.emit('connection', socket);
      socket.resume();
      return;
    }
    const secureContext = await leaves.secureContextFor(hostName);
    const tlsSocket = new TLSSocket(socket, { isServer: true, secureContext, ALPNProtocols: ['http/1.1'] });
    track(tlsSocket as unknown as Socket, {
      connection: socketMeta?.connection,
      tunnel: { ...tunnelBase, scheme: 'https' },
    });
    inner.emit('connection', tlsSocket);
  }

  return {
    async listen(listenOptions) {
      const server = createServer({ keepAliveTimeout: 30_000 }, (request, response) => {
        inner.emit('request', request, response);
      });
      server.on('connection', (socket: Socket) => {
        // A token connection was tracked when its line was read; any other is keyed by listener or address.
        if (!meta.has(socket))
          track(socket, { connection: listenOptions.connection ?? socket.remoteAddress });
      });
      server.on('connect', (request: IncomingMessage, socket: Socket, head: Buffer) => {
        const task = onConnect(request, socket, head).catch(() => {
          socket.destroy();
        });
        inFlight.add(task);
        void task.finally(() => inFlight.delete(task));
      });
      servers.add(server);
      const tokens = options.runTokens;
      // With tokens on a shared TCP port, each connection's first line is read before HTTP parsing starts.
      const front: Server =
        tokens !== undefined && listenOptions.path === undefined && listenOptions.connection === undefined
          ? createNetServer((socket) => {
              socket.on('error', () => socket.destroy());
              void readTokenPreamble(socket, preambleTimeoutMs).then((preamble) => {
                if (socket.destroyed) return;
                if (preamble.kind === 'token') {
                  const check = verifyEgressRunToken(preamble.token, { key: tokens.key, now: now() });
                  if (check.ok) {
                    const connection = `${tokenConnectionPrefix}${randomUUID()}`;
                    tokenIdentities.set(connection, {
                      identity: check.identity,
                      expiresAtMs: check.expiresAtMs,
                    });
                    socket.once('close', () => tokenIdentities.delete(connection));
                    track(socket, { connection });
                  } else {
                    track(socket, { connection: undefined, tokenRefusal: check.reason });
                  }
                } else if (preamble.kind === 'malformed') {
                  // The line never ended properly: what follows cannot be told apart from it, so answer and hang up.
                  log('egress_token_refused', [['reason', 'malformed']]);
                  socket.end(rawResponse(407, tokenRefusalBody('malformed')));
                  return;
                }
                server.emit('connection', socket);
                socket.resume();
              });
            })
          : server;
      if (front !== server) servers.add(front);
      await new Promise<void>((resolve, reject) => {
        front.once('error', reject);
        if (listenOptions.path !== undefined) front.listen(listenOptions.path, resolve);
        else front.listen(listenOptions.port ?? 0, listenOptions.host ?? '127.0.0.1', resolve);
      });
      const address = front.address();
      return {
        ...(typeof address === 'object' && address !== null ? { port: address.port } : {}),
        ...omitUndefined({ path: listenOptions.path }),
        close: () =>
          new Promise<void>((resolve) => {
            servers.delete(server);
            servers.delete(front);
            if (front !== server) front.close();
            server.close(() => resolve());
            for (const socket of sockets) {
              if (
                meta.get(socket)?.connection === listenOptions.connection &&
                listenOptions.connection !== undefined
              ) {
                socket.destroy();
              }
            }
          }),
      };
    },
    async listenHealth(healthOptions) {
      const endpoint = await listenHealthEndpoint({ ready, ...healthOptions });
      healthEndpoints.push(endpoint);
      return endpoint.port;
    },
    ready,
    async drain() {
      draining = true;
      log('egress_drain_started', [['in_flight', inFlight.size]]);
      for (const server of servers) server.close();
      drainController.abort();
      const cap = new Promise<void>((resolve) =>
        setTimeout(resolve, options.drainTimeoutMs ?? 10_000).unref(),
      );
      await Promise.race([Promise.allSettled([...inFlight]), cap]);
      // End sockets gently first, so the last responses (often the 403s of expired approvals) are flushed.
      for (const socket of sockets) socket.end();
      await new Promise<void>((resolve) => setTimeout(resolve, 200).unref());
      for (const socket of sockets) socket.destroy();
      await Promise.all(healthEndpoints.map((endpoint) => endpoint.close()));
      httpsAgent.destroy();
      httpAgent.destroy();
      log('egress_drain_finished', [['in_flight', inFlight.size]]);
    },
  };
}
