import type { Server, Socket } from 'node:net';
import type { EgressContext } from '../decision/egress-context.ts';
import type { EgressLogger } from '../decision/egress-logger.ts';
import type { EgressRunTokenRefusal } from './egress-run-token.ts';
import type { createLeafCertificateCache } from './leaf-certificate-cache.ts';

/** What the proxy knows about one accepted socket. */
export interface SocketMeta {
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

/**
 * The state one running proxy shares between its parts (listeners, the request handler, CONNECT tunnels): the
 * decision context, the sockets it tracks and what it knows of each, and whether it serves.
 */
export interface ProxyConnections {
  /** The decision context, identifying token connections by their verified token. */
  readonly context: EgressContext;
  readonly log: EgressLogger;
  readonly meta: WeakMap<Socket, SocketMeta>;
  readonly sockets: Set<Socket>;
  readonly servers: Set<Server>;
  /** Requests and tunnels under way, which a drain waits for. */
  readonly inFlight: Set<Promise<void>>;
  /** The HTTP server every request is handled by, whichever listener or tunnel it came through. */
  readonly inner: Server;
  readonly leaves: ReturnType<typeof createLeafCertificateCache>;
  track(socket: Socket, socketMeta: SocketMeta): void;
  /** True while serving: identity synced and not draining. */
  ready(): boolean;
  /** Why a request on this connection is refused for its token (forged, malformed, or expired since). */
  tokenRefusal(socketMeta: SocketMeta | undefined): EgressRunTokenRefusal | undefined;
}

/** Keeps `task` in the in-flight set until it settles. */
export function trackInFlight(connections: ProxyConnections, task: Promise<void>): void {
  connections.inFlight.add(task);
  void task.finally(() => connections.inFlight.delete(task));
}
