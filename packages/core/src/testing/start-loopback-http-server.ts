// A plain HTTP server on 127.0.0.1, port 0, for tests that need a real peer: provider fakes, test sites, the
// guarded fetch's target. It records every request before handing it to the test's handler.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the loopback server received, with its whole body read. */
export interface ReceivedHttpRequest {
  readonly method: string;
  /** The request target as sent (path and query). */
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** Answers one received request; it must end `response`. */
export type LoopbackHttpHandler = (request: ReceivedHttpRequest, response: ServerResponse) => void;

/** A running {@link startLoopbackHttpServer}. */
export interface LoopbackHttpServer {
  readonly server: Server;
  readonly port: number;
  /** `http://127.0.0.1:{port}` */
  readonly origin: string;
  /** Every request so far, in arrival order. */
  readonly received: ReceivedHttpRequest[];
  /** Drops open connections (keep-alive included) and stops listening. */
  close(): Promise<void>;
}

/** Starts a loopback HTTP server on port 0 that records every request and answers with `handler`. */
export async function startLoopbackHttpServer(handler: LoopbackHttpHandler): Promise<LoopbackHttpServer> {
  const received: ReceivedHttpRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const record: ReceivedHttpRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(record);
      handler(record, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    origin: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
