import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A bound health endpoint. */
export interface HealthEndpoint {
  readonly port: number;
  close(): Promise<void>;
}

/** Serves `GET /healthz`: 200 `ok` while `ready()` holds, else 503; anything else is 404. */
export async function listenHealthEndpoint(options: {
  readonly ready: () => boolean;
  readonly port?: number;
  readonly host?: string;
}): Promise<HealthEndpoint> {
  const server: Server = createServer((request, response) => {
    if (request.url !== '/healthz') {
      response.writeHead(404).end();
      return;
    }
    const ok = options.ready();
    response.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok' : 'unavailable');
  });
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
