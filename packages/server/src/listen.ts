import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { ToolbusServer } from './create-server.ts';
import { ServerError } from './http/server-error.ts';

/** Where {@link listen} binds; loopback by default. */
export interface ListenOptions {
  /** Default 8787; 0 picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1. Any other address needs `api-keys` auth. */
  readonly host?: string;
  /**
   * Paths answered by a plain `node:http` handler instead of the app (the recovery gateway's `/v1/chat/completions`,
   * `/v1/messages` and `/v1/models`, which stream without the web-stream layer).
   */
  readonly nodeRoutes?: {
    readonly paths: readonly string[];
    /** Path prefixes answered by the handler too (the gateway's `/v1/models/{id}`). */
    readonly prefixes?: readonly string[];
    readonly handler: (request: IncomingMessage, response: ServerResponse) => void;
  };
}

/** A listening server. */
export interface ListeningServer {
  /** `http://host:port`. */
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections, stops running turns (each writes its end), then resolves. */
  close(): Promise<void>;
}

const keepAliveTimeoutMs = 65_000;

const loopbackAddresses = /^(?:localhost|127(?:\.\d{1,3}){3}|::1|\[::1\])$/i;

/**
 * Serves a toolbus server over HTTP with `@hono/node-server`. Refuses to bind a non-loopback address while the
 * server has no authentication (`local` mode): every request would act as the local user.
 */
export async function listen(server: ToolbusServer, options: ListenOptions = {}): Promise<ListeningServer> {
  const host = options.host ?? '127.0.0.1';
  if (server.auth === 'local' && !loopbackAddresses.test(host)) {
    throw new ServerError({
      code: 'forbidden',
      field: 'host',
      message: `host: ${host} is not a loopback address; configure API keys (auth "api-keys") before serving on it.`,
    });
  }
  const http = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const nodeRoutes = options.nodeRoutes;
    const paths = new Set(nodeRoutes?.paths);
    const createWithRoutes = ((serverOptions: ServerOptions, listener: RequestListener) =>
      createServer(serverOptions, (request, response) => {
        const path = (request.url ?? '/').split('?')[0] as string;
        if (
          nodeRoutes !== undefined &&
          (paths.has(path) || nodeRoutes.prefixes?.some((prefix) => path.startsWith(prefix)) === true)
        )
          nodeRoutes.handler(request, response);
        else listener(request, response);
      })) as typeof createServer;
    const instance = serve(
      {
        fetch: server.app.fetch,
        port: options.port ?? 8787,
        hostname: host,
        ...(nodeRoutes === undefined ? {} : { createServer: createWithRoutes }),
      },
      () => resolve(instance),
    );
    instance.once('error', reject);
  });
  // Idle keep-alive connections outlive the clients' and proxies' own idle timers (undici's, a load balancer's
  // 60 s), so the server never closes a socket a client is about to reuse: that race is an ECONNRESET on the
  // client's next request. Node's default is 5 s.
  const node = http as unknown as { keepAliveTimeout: number; headersTimeout: number };
  node.keepAliveTimeout = keepAliveTimeoutMs;
  node.headersTimeout = keepAliveTimeoutMs + 1_000;
  const port = (http.address() as AddressInfo).port;
  const shownHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    async close() {
      const closing = new Promise<void>((resolve) => http.close(() => resolve()));
      await server.close();
      (http as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      await closing;
    },
  };
}
