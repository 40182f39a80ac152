import { readFileSync } from 'node:fs';
import { type ReceivedHttpRequest, startLoopbackHttpServer } from '@toolbus/core/testing';
import { parse } from 'yaml';

/** The running pet store: its port, the document pointing at it, what it received, and a way to stop it. */
export interface PetStore {
  readonly port: number;
  /** The fixture document with its server variable set to this port (a fresh copy each call). */
  document(): Record<string, unknown>;
  /** Every request, with its raw target exactly as sent (path and query, still encoded). */
  readonly requests: ReceivedHttpRequest[];
  /** Resolves when the server saw a client go away in the middle of `/slow`. */
  readonly slowAborted: Promise<void>;
  close(): Promise<void>;
}

/** A 1×1 PNG. */
export const pngBytes = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

/** Starts the pet store of `petstore.yaml` on 127.0.0.1, port 0. */
export async function startPetStore(): Promise<PetStore> {
  let markSlowAborted: () => void = () => {};
  const slowAborted = new Promise<void>((resolve) => {
    markSlowAborted = resolve;
  });
  let port = 0;
  const loopback = await startLoopbackHttpServer((request, response) => {
    const { url, body } = request;
    const path = new URL(url, 'http://127.0.0.1').pathname;
    const json = (status: number, value: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify(value));
    };
    let match: RegExpExecArray | null;
    if (request.method === 'GET' && path === '/v1/pets') {
      json(200, [{ id: '1', name: 'Rex' }]);
    } else if (request.method === 'POST' && path === '/v1/pets') {
      json(201, { id: '2', ...JSON.parse(body) });
    } else if (request.method === 'GET' && (match = /^\/v1\/pets\/([^/]+)\/photo$/.exec(path))) {
      response.writeHead(200, { 'content-type': 'image/png', 'content-disposition': 'inline; filename="../../etc/rex.png"' });
      response.end(pngBytes);
    } else if (request.method === 'GET' && (match = /^\/v1\/pets\/([^/]+)$/.exec(path))) {
      if (match[1] === 'missing') json(404, { message: 'Pet not found', documentation_url: 'https://example.test/docs' });
      else json(200, { id: decodeURIComponent(match[1] ?? ''), name: 'Rex' });
    } else if (request.method === 'DELETE' && /^\/v1\/pets\/[^/]+$/.test(path)) {
      response.writeHead(204).end();
    } else if (path === '/v1/report') {
      response.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
      response.end('month,sales\njanuary,10\nfebruary,12\n');
    } else if (path === '/v1/notes') {
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('Feed the cat at six.');
    } else if (path === '/v1/big') {
      json(200, Array.from({ length: 20_000 }, (_, index) => ({ id: index, name: `pet number ${index}` })));
    } else if (path === '/v1/slow') {
      response.on('close', () => markSlowAborted());
      response.writeHead(200, { 'content-type': 'application/json' });
      response.flushHeaders();
    } else if ((match = /^\/v1\/fail\/(\d+)$/.exec(path))) {
      json(Number(match[1]), { message: `failure ${match[1]}`, detail: 'x'.repeat(5000) });
    } else if (path === '/v1/leak') {
      json(200, { authorization: request.headers.authorization ?? null, apiKey: request.headers['x-api-key'] ?? null, url });
    } else if (path === '/v1/moved') {
      response.writeHead(302, { location: '/v1/notes' }).end();
    } else if (path === '/v1/away') {
      response.writeHead(302, { location: `http://localhost:${port}/v1/notes` }).end();
    } else {
      json(404, { message: `no route for ${request.method} ${path}` });
    }
  });
  // Tests create tools (seconds under load) between calls: keep idle connections open longer than that, or a
  // reused socket races the server's idle close and the call fails with "fetch failed".
  loopback.server.keepAliveTimeout = 120_000;
  port = loopback.port;
  const text = readFileSync(new URL('./petstore.yaml', import.meta.url), 'utf8');
  return {
    port,
    document() {
      const document = parse(text) as { servers: { variables: { port: { default: string } } }[] };
      const first = document.servers[0];
      if (first) first.variables.port.default = String(port);
      return document as unknown as Record<string, unknown>;
    },
    requests: loopback.received,
    slowAborted,
    close: loopback.close,
  };
}
