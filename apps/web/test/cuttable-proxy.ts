import { connect, createServer, type Socket } from 'node:net';

/** A loopback TCP proxy whose connections can be cut, and new ones refused for a while: a real network loss. */
export interface CuttableProxy {
  readonly url: string;
  /** Destroys every open connection and refuses new ones for `ms`. */
  cut(ms: number): void;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 in front of `target` (an `http://127.0.0.1:port` URL). */
export async function startCuttableProxy(target: string): Promise<CuttableProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let refuseUntil = 0;
  const server = createServer((client) => {
    if (Date.now() < refuseUntil) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(port), hostname);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    cut(ms) {
      refuseUntil = Date.now() + ms;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
