import { createServer, Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { rootCertificates } from 'node:tls';
import { egressBlockBody } from '../decision/egress-block.ts';
import type { EgressContext } from '../decision/egress-context.ts';
import type { CertificateAuthority } from './certificate-authority.ts';
import { type HealthEndpoint, listenHealthEndpoint } from './health-endpoint.ts';
import { createLeafCertificateCache } from './leaf-certificate-cache.ts';
import { sendBlock } from './proxy-answers.ts';
import { type ProxyConnections, trackInFlight } from './proxy-connections.ts';
import { listenProxy } from './proxy-listener.ts';
import { handleProxyRequest } from './proxy-request.ts';
import { TokenConnections } from './token-connections.ts';

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

/**
 * Starts the egress proxy: an HTTP proxy (CONNECT tunnels and absolute-form plain HTTP) that intercepts TLS
 * with certificates from the deployment's CA, asks {@link decideEgress} about every request, and forwards
 * allowed ones to the checked address (keeping SNI and certificate verification for the name, so DNS cannot
 * redirect the connection after the check). Blocks are 403s with a JSON body for the agent.
 */
export function startEgressProxy(options: EgressProxyOptions): EgressProxy {
  const drainController = new AbortController();
  const tokens = new TokenConnections(options.runTokens?.now ?? Date.now);
  const context: EgressContext = {
    ...options.context,
    signal: drainController.signal,
    identify: (connection) =>
      tokens.owns(connection) ? tokens.identity(connection) : options.context.identify(connection),
  };
  const upstreamCa = [...rootCertificates, ...(options.upstreamTrustedCa ?? [])];
  const agents = {
    https: new HttpsAgent({ keepAlive: true, ca: upstreamCa }),
    http: new HttpAgent({ keepAlive: true }),
  };
  const healthEndpoints: HealthEndpoint[] = [];
  let draining = false;
  const ready = (): boolean => !draining && (options.isIdentitySynced?.() ?? true);
  const connections: ProxyConnections = {
    context,
    log: context.logger ?? (() => {}),
    meta: new WeakMap(),
    sockets: new Set(),
    servers: new Set(),
    inFlight: new Set(),
    inner: createServer({ keepAliveTimeout: 30_000 }, (request, response) => {
      const task = handleProxyRequest(connections, agents, { request, response }).catch(() =>
        sendBlock(response, 403, egressBlockBody('internal_error')),
      );
      trackInFlight(connections, task);
    }),
    leaves: createLeafCertificateCache(options.authority),
    track: (socket, socketMeta) => {
      connections.meta.set(socket, socketMeta);
      connections.sockets.add(socket);
      socket.on('close', () => connections.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    },
    ready,
    tokenRefusal: (socketMeta) => tokens.refusal(socketMeta),
  };
  const { log, sockets, inFlight } = connections;
  return {
    listen: (listenOptions) =>
      listenProxy(connections, {
        options: listenOptions,
        tokens: options.runTokens && { key: options.runTokens.key, connections: tokens },
      }),
    async listenHealth(healthOptions) {
      const endpoint = await listenHealthEndpoint({ ready, ...healthOptions });
      healthEndpoints.push(endpoint);
      return endpoint.port;
    },
    ready,
    async drain() {
      draining = true;
      log('egress_drain_started', [['in_flight', inFlight.size]]);
      for (const server of connections.servers) server.close();
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
      agents.https.destroy();
      agents.http.destroy();
      log('egress_drain_finished', [['in_flight', inFlight.size]]);
    },
  };
}
