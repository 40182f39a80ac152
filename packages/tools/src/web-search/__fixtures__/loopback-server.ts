// A loopback HTTP server on port 0 that records every request (method, path, headers, body) and answers with a
// handler. Used by the web_search fakes and the open_url test site.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export interface LoopbackServer {
  readonly server: Server;
  readonly port: number;
  readonly origin: string;
  readonly received: ReceivedRequest[];
  close(): Promise<void>;
}

export type LoopbackHandler = (request: ReceivedRequest, response: ServerResponse) => void;

export async function startLoopbackServer(handler: LoopbackHandler): Promise<LoopbackServer> {
  const received: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const record = {
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
