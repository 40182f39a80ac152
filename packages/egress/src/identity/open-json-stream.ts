import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { omitUndefined } from '@toolbus/spec';

/** Options for {@link openJsonStream}. */
export interface OpenJsonStreamOptions {
  readonly url: string;
  /** A Unix socket to connect to instead of the URL's host (Docker's API). */
  readonly socketPath?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** CA certificates (PEM) trusted for an HTTPS API server. */
  readonly ca?: string;
  readonly signal?: AbortSignal;
  readonly connectTimeoutMs?: number;
}

/** An open response: its status, and its body as JSON values (one per line, or one whole document). */
export interface JsonStream {
  readonly status: number;
  /** Each newline-delimited JSON value as it arrives. */
  values(): AsyncIterable<unknown>;
  /** The whole body parsed as one JSON document. */
  json(): Promise<unknown>;
  close(): void;
}

/**
 * Opens a GET to a control-plane API (the Kubernetes API server, the Docker daemon) whose body is either one
 * JSON document or a stream of newline-delimited JSON values (watch and event streams).
 */
export function openJsonStream(options: OpenJsonStreamOptions): Promise<JsonStream> {
  const url = new URL(options.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      {
        ...(options.socketPath === undefined
          ? {
              host: url.hostname.replace(/^\[|\]$/g, ''),
              port: url.port === '' ? undefined : Number(url.port),
            }
          : { socketPath: options.socketPath }),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { accept: 'application/json', ...options.headers },
        ...omitUndefined({ ca: options.ca, signal: options.signal }),
        timeout: options.connectTimeoutMs ?? 15_000,
      },
      (response: IncomingMessage) => {
        // The connect timeout only guards the connection; a watch may then stay quiet for minutes.
        request.setTimeout(0);
        resolve({
          status: response.statusCode ?? 0,
          async *values() {
            let buffered = '';
            for await (const chunk of response as AsyncIterable<Buffer>) {
              buffered += chunk.toString('utf8');
              let newline = buffered.indexOf('\n');
              while (newline !== -1) {
                const line = buffered.slice(0, newline).trim();
                buffered = buffered.slice(newline + 1);
                if (line !== '') yield JSON.parse(line) as unknown;
                newline = buffered.indexOf('\n');
              }
            }
            if (buffered.trim() !== '') yield JSON.parse(buffered) as unknown;
          },
          async json() {
            const chunks: Buffer[] = [];
            for await (const chunk of response as AsyncIterable<Buffer>) chunks.push(chunk);
            return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
          },
          close: () => response.destroy(),
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error('connect timeout')));
    request.on('error', reject);
    request.end();
  });
}
