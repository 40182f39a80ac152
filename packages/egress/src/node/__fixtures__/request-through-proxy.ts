import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { omitUndefined } from '@toolbus/spec';

/** Where the proxy listens: a TCP port on loopback or a Unix socket. */
export type ProxyAddress = { readonly port: number } | { readonly path: string };

/** What came back. */
export interface ProxiedResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

function proxyTarget(proxy: ProxyAddress): { host: string; port: number } | { socketPath: string } {
  return 'path' in proxy ? { socketPath: proxy.path } : { host: '127.0.0.1', port: proxy.port };
}

/** Options for {@link requestThroughProxy}. */
export interface RequestThroughProxyOptions {
  readonly proxy: ProxyAddress;
  readonly url: string;
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** The proxy's CA certificate, the only CA the client trusts (like a sandbox). */
  readonly ca: string;
  /** Sent on the CONNECT (for HTTPS) or the request (for plain HTTP). */
  readonly proxyAuthorization?: string;
}

/**
 * Sends one request through the proxy the way ordinary clients do: CONNECT then TLS for HTTPS (verifying the
 * proxy's certificate for the URL's host against `ca` only), absolute-form for plain HTTP.
 */
export function requestThroughProxy(options: RequestThroughProxyOptions): Promise<ProxiedResponse> {
  const url = new URL(options.url);
  const collect = (resolve: (response: ProxiedResponse) => void, reject: (error: Error) => void) =>
    (response: import('node:http').IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString() }),
      );
      response.on('error', reject);
    };
  const proxyHeaders: Record<string, string> =
    omitUndefined({ 'Proxy-Authorization': options.proxyAuthorization });
  if (url.protocol === 'http:') {
    return new Promise((resolve, reject) => {
      const request = httpRequest({
        ...proxyTarget(options.proxy),
        method: options.method ?? 'GET',
        path: url.href,
        headers: { host: url.host, ...proxyHeaders, ...options.headers },
        agent: false,
      });
      request.on('response', collect(resolve, reject));
      request.on('error', reject);
      request.end(options.body);
    });
  }
  const authority = `${url.hostname}:${url.port === '' ? '443' : url.port}`;
  return new Promise((resolve, reject) => {
    const connect = httpRequest({
      ...proxyTarget(options.proxy),
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...proxyHeaders },
      agent: false,
    });
    connect.on('connect', (response, socket: Socket, head: Buffer) => {
      if (response.statusCode !== 200) {
        socket.destroy();
        const status = response.statusCode ?? 0;
        let body = head.toString();
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        // A refused CONNECT carries its body after the head; read what remains on the socket.
        socket.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        setTimeout(() => resolve({ status, headers: response.headers, body }), 50);
        return;
      }
      const tls = tlsConnect({ socket, servername: url.hostname, ca: options.ca, ALPNProtocols: ['http/1.1'] });
      tls.on('error', reject);
      const request = httpsRequest({
        host: url.hostname,
        port: url.port === '' ? 443 : Number(url.port),
        method: options.method ?? 'GET',
        path: `${url.pathname}${url.search}`,
        headers: options.headers ?? {},
        // No agent: with one, Node would ignore createConnection and dial (and resolve) the host itself.
        createConnection: () => tls,
      });
      request.on('response', collect(resolve, reject));
      request.on('error', reject);
      request.end(options.body);
    });
    connect.on('response', collect(resolve, reject));
    connect.on('error', reject);
    connect.end();
  });
}
