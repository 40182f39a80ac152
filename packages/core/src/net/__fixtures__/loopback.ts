// Test support for the guarded fetch: a loopback HTTP server, a scripted resolver and a socket factory that
// never dials anything but 127.0.0.1, whatever address the guard hands it.
import { isIP } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildConnector } from 'undici';
import type { GuardedConnect, GuardedLookup } from '../guarded-connector.ts';

/** A request the loopback server received. */
export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A loopback HTTP server on port 0 that records every request and answers with `handler`. */
export interface LoopbackServer {
  readonly server: Server;
  readonly port: number;
  readonly received: ReceivedRequest[];
  close(): Promise<void>;
}

export type Handler = (request: ReceivedRequest, response: ServerResponse) => void;

export async function startLoopbackServer(handler: Handler): Promise<LoopbackServer> {
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
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A resolver answering from a table; each name may have a list of answers used in turn (the last repeats). */
export function scriptedLookup(answers: Record<string, ReadonlyArray<readonly string[]>>): GuardedLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = (hostname: string, _options: { all: true }, callback: Parameters<GuardedLookup>[2]) => {
    const script = answers[hostname];
    const index = calls.filter((name) => name === hostname).length;
    calls.push(hostname);
    const answer = script?.[Math.min(index, script.length - 1)];
    if (answer === undefined) {
      setImmediate(() => callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []));
      return;
    }
    setImmediate(() => callback(null, answer.map((address) => ({ address, family: isIP(address) }))));
  };
  return Object.assign(lookup, { calls });
}

/**
 * A socket factory that records the (already checked) address and TLS server name it was asked to dial, then
 * dials 127.0.0.1 on the same port instead. Tests use it to prove the allowed path end to end without leaving
 * the machine.
 */
export function loopbackConnect(tlsOptions: { ca?: string } = {}): GuardedConnect & { dialed: Array<{ hostname: string; servername: string | undefined }> } {
  const inner = buildConnector(tlsOptions);
  const dialed: Array<{ hostname: string; servername: string | undefined }> = [];
  const connect: GuardedConnect = (options, callback) => {
    dialed.push({ hostname: options.hostname, servername: options.servername ?? undefined });
    inner({ ...options, hostname: '127.0.0.1' }, callback);
  };
  return Object.assign(connect, { dialed });
}
