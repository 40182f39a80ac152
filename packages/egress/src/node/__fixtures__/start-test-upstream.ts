import type { IncomingHttpHeaders } from 'node:http';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { LeafCertificateCache } from '../leaf-certificate-cache.ts';

/** What an upstream saw of one request. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: readonly string[];
  readonly bodyLength: number;
}

/** A loopback upstream that records requests and answers `{ok: true, path}`. */
export interface TestUpstream {
  readonly port: number;
  readonly seen: SeenRequest[];
  close(): Promise<void>;
}

/**
 * Starts an HTTPS upstream (certificates from `leaves`, i.e. its own test CA) or, without `leaves`, a plain
 * HTTP one, on 127.0.0.1.
 */
export async function startTestUpstream(leaves?: LeafCertificateCache): Promise<TestUpstream> {
  const seen: SeenRequest[] = [];
  const handler = (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => {
    let bodyLength = 0;
    request.on('data', (chunk: Buffer) => {
      bodyLength += chunk.length;
    });
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        rawHeaders: request.rawHeaders,
        bodyLength,
      });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ok: true, path: request.url }));
    });
  };
  const server =
    leaves === undefined
      ? createHttpServer(handler)
      : createHttpsServer(
          {
            SNICallback: (name, callback) => {
              leaves.secureContextFor(name).then(
                (context) => callback(null, context),
                (error: Error) => callback(error),
              );
            },
          },
          handler,
        );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
