import { createServer, type IncomingMessage } from 'node:http';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { omitUndefined } from '@toolbus/spec';
import { openConnectTunnel } from './connect-tunnel.ts';
import { type ProxyConnections, trackInFlight } from './proxy-connections.ts';
import type { EgressListener, EgressListenOptions } from './start-egress-proxy.ts';
import type { TokenConnections } from './token-connections.ts';

/**
 * Opens one listener of the proxy. Its requests go to the shared inner server and its CONNECTs open tunnels. With
 * run tokens on a shared TCP port, each connection's first line is read before HTTP parsing starts.
 */
export async function listenProxy(
  connections: ProxyConnections,
  listener: {
    readonly options: EgressListenOptions;
    readonly tokens?: { readonly key: Uint8Array; readonly connections: TokenConnections } | undefined;
  },
): Promise<EgressListener> {
  const { options, tokens } = listener;
  const { meta, servers } = connections;
  const server = createServer({ keepAliveTimeout: 30_000 }, (request, response) => {
    connections.inner.emit('request', request, response);
  });
  server.on('connection', (socket: Socket) => {
    // A token connection was tracked when its line was read; any other is keyed by listener or address.
    if (!meta.has(socket))
      connections.track(socket, { connection: options.connection ?? socket.remoteAddress });
  });
  server.on('connect', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    trackInFlight(
      connections,
      openConnectTunnel(connections, { request, socket, head }).catch(() => {
        socket.destroy();
      }),
    );
  });
  servers.add(server);
  const front: Server =
    tokens !== undefined && options.path === undefined && options.connection === undefined
      ? createNetServer((socket) => {
          socket.on('error', () => socket.destroy());
          tokens.connections
            .admit({
              socket,
              key: tokens.key,
              track: connections.track,
              onMalformed: () => connections.log('egress_token_refused', [['reason', 'malformed']]),
            })
            .then((admitted) => {
              if (!admitted) return;
              server.emit('connection', socket);
              socket.resume();
            })
            .catch(() => socket.destroy());
        })
      : server;
  if (front !== server) servers.add(front);
  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    if (options.path !== undefined) front.listen(options.path, resolve);
    else front.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const address = front.address();
  return {
    ...(typeof address === 'object' && address !== null ? { port: address.port } : {}),
    ...omitUndefined({ path: options.path }),
    close: () =>
      new Promise<void>((resolve) => {
        servers.delete(server);
        servers.delete(front);
        if (front !== server) front.close();
        server.close(() => resolve());
        for (const socket of connections.sockets) {
          if (meta.get(socket)?.connection === options.connection && options.connection !== undefined) {
            socket.destroy();
          }
        }
      }),
  };
}
