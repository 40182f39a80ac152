// The guarded fetch must behave as a drop-in WHATWG fetch (the MCP SDK, OpenAPI tools and open_url receive it
// as their `fetch`): Request objects, header shapes, every body kind, standard Responses, abort signals, TLS.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type LoopbackHttpServer, startLoopbackHttpServer } from '../testing/start-loopback-http-server.ts';
import { loopbackConnect, scriptedLookup } from './__fixtures__/loopback.ts';
import { createGuardedFetch } from './guarded-fetch.ts';

let server: LoopbackHttpServer;

before(async () => {
  server = await startLoopbackHttpServer((request, response) => {
    if (request.url === '/cookies') {
      response.setHeader('set-cookie', ['a=1; Path=/', 'b=2; Path=/']);
      response.end('ok');
      return;
    }
    if (request.url === '/empty') {
      response.writeHead(204, { 'x-empty': 'yes' });
      response.end();
      return;
    }
    if (request.url === '/odd-status') {
      response.writeHead(999);
      response.end();
      return;
    }
    if (request.url === '/hang') return; // never answers: the caller's signal must end the wait
    response.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-echo': 'yes' });
    response.end(
      JSON.stringify({
        method: request.method,
        url: request.url,
        body: request.body,
        contentType: request.headers['content-type'] ?? null,
        custom: request.headers['x-custom'] ?? null,
      }),
    );
  });
});
after(() => server.close());

type Echo = { method: string; url: string; body: string; contentType: string | null; custom: string | null };

function setup() {
  const fetch = createGuardedFetch({
    lookup: scriptedLookup({ 'api.example': [['93.184.216.34']] }),
    connect: loopbackConnect(),
  });
  const base = `http://api.example:${server.port}`;
  return { fetch, base };
}

describe('createGuardedFetch as a WHATWG fetch', () => {
  test('returns a standard Response: status, statusText, headers, body readers, clone', async () => {
    const { fetch, base } = setup();
    try {
      const response = await fetch(new URL('/path', base));
      assert.ok(response instanceof Response);
      assert.equal(response.status, 201);
      assert.equal(response.statusText, 'Made');
      assert.equal(response.ok, true);
      assert.ok(response.headers instanceof Headers);
      assert.equal(response.headers.get('x-echo'), 'yes');
      const copy = response.clone();
      assert.equal(((await response.json()) as Echo).url, '/path');
      assert.equal(((await copy.json()) as Echo).method, 'GET');
    } finally {
      await fetch.close();
    }
  });

  test('keeps several Set-Cookie headers apart; 204 has a null body', async () => {
    const { fetch, base } = setup();
    try {
      const cookies = await fetch(`${base}/cookies`);
      assert.deepEqual(cookies.headers.getSetCookie(), ['a=1; Path=/', 'b=2; Path=/']);
      await cookies.text();
      const empty = await fetch(`${base}/empty`);
      assert.equal(empty.status, 204);
      assert.equal(empty.body, null);
      assert.equal(empty.headers.get('x-empty'), 'yes');
    } finally {
      await fetch.close();
    }
  });

  test('accepts a Request object with method, headers and body', async () => {
    const { fetch, base } = setup();
    try {
      const request = new Request(`${base}/from-request`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'x-custom': 'r' },
        body: 'request body',
      });
      const echo = (await (await fetch(request)).json()) as Echo;
      assert.deepEqual(echo, {
        method: 'POST',
        url: '/from-request',
        body: 'request body',
        contentType: 'text/plain',
        custom: 'r',
      });
    } finally {
      await fetch.close();
    }
  });

  test('init overrides a Request object field by field', async () => {
    const { fetch, base } = setup();
    try {
      const request = new Request(`${base}/merge`, {
        method: 'POST',
        headers: { 'x-custom': 'from-request' },
        body: 'old',
      });
      const echo = (await (await fetch(request, { method: 'PUT', body: 'new' })).json()) as Echo;
      assert.deepEqual([echo.method, echo.body, echo.custom], ['PUT', 'new', 'from-request']);
      const kept = new Request(`${base}/merge`, { method: 'POST', body: 'kept' });
      // What `{ ...init, body: undefined }` spreads produce (the MCP SDK merges inits this way).
      const spreadInit = { body: undefined, headers: { 'x-custom': 'init' } } as unknown as RequestInit;
      const keptEcho = (await (await fetch(kept, spreadInit)).json()) as Echo;
      assert.deepEqual([keptEcho.method, keptEcho.body, keptEcho.custom], ['POST', 'kept', 'init']);
    } finally {
      await fetch.close();
    }
  });

  test('accepts headers as a Headers object, an array of pairs and a record', async () => {
    const { fetch, base } = setup();
    try {
      for (const headers of [
        new Headers({ 'X-Custom': 'h' }),
        [['x-custom', 'h']] as [string, string][],
        { 'x-custom': 'h' },
      ]) {
        const echo = (await (await fetch(base, { headers })).json()) as Echo;
        assert.equal(echo.custom, 'h');
      }
    } finally {
      await fetch.close();
    }
  });

  test('sends every body kind: string, Uint8Array, ArrayBuffer, ReadableStream, Blob, URLSearchParams, FormData', async () => {
    const { fetch, base } = setup();
    const bytes = new TextEncoder().encode('bytes body');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('stream '));
        controller.enqueue(new TextEncoder().encode('body'));
        controller.close();
      },
    });
    const form = new FormData();
    form.set('field', 'value');
    const cases: ReadonlyArray<readonly [string, RequestInit, (echo: Echo) => void]> = [
      [
        'string',
        { body: 'text body' },
        (echo) => assert.deepEqual([echo.body, echo.contentType], ['text body', 'text/plain;charset=UTF-8']),
      ],
      ['Uint8Array', { body: bytes }, (echo) => assert.equal(echo.body, 'bytes body')],
      ['ArrayBuffer', { body: bytes.slice().buffer }, (echo) => assert.equal(echo.body, 'bytes body')],
      [
        'ReadableStream',
        { body: stream, duplex: 'half' } as RequestInit,
        (echo) => assert.equal(echo.body, 'stream body'),
      ],
      [
        'Blob',
        { body: new Blob(['blob body'], { type: 'text/x-blob' }) },
        (echo) => assert.deepEqual([echo.body, echo.contentType], ['blob body', 'text/x-blob']),
      ],
      [
        'URLSearchParams',
        { body: new URLSearchParams({ a: '1', b: 'two' }) },
        (echo) =>
          assert.deepEqual(
            [echo.body, echo.contentType],
            ['a=1&b=two', 'application/x-www-form-urlencoded;charset=UTF-8'],
          ),
      ],
      [
        'FormData',
        { body: form },
        (echo) => {
          assert.match(echo.contentType ?? '', /^multipart\/form-data; boundary=/);
          assert.match(echo.body, /name="field"\r\n\r\nvalue\r\n/);
        },
      ],
    ];
    try {
      for (const [name, init, check] of cases) {
        const response = await fetch(`${base}/body`, { method: 'POST', ...init });
        const echo = (await response.json()) as Echo;
        assert.equal(echo.method, 'POST', name);
        check(echo);
      }
    } finally {
      await fetch.close();
    }
  });

  test('a status no Response can hold is a network error (TypeError), not a crash', async () => {
    const { fetch, base } = setup();
    try {
      await assert.rejects(
        fetch(`${base}/odd-status`),
        (error: unknown) => error instanceof TypeError && error.cause instanceof RangeError,
      );
    } finally {
      await fetch.close();
    }
  });

  test('HEAD returns headers without a body', async () => {
    const { fetch, base } = setup();
    try {
      const response = await fetch(base, { method: 'HEAD' });
      assert.equal(response.status, 201);
      assert.equal(await response.text(), '');
    } finally {
      await fetch.close();
    }
  });

  test('an already aborted signal rejects without a request; aborting mid-request rejects with the reason', async () => {
    const { fetch, base } = setup();
    try {
      const before = server.received.length;
      await assert.rejects(fetch(base, { signal: AbortSignal.abort() }), { name: 'AbortError' });
      assert.equal(server.received.length, before);
      const controller = new AbortController();
      const pending = fetch(`${base}/hang`, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('caller gave up')), 50);
      await assert.rejects(pending, /caller gave up/);
    } finally {
      await fetch.close();
    }
  });
});

describe('createGuardedFetch over TLS', () => {
  const fixtures = new URL('./__fixtures__/', import.meta.url);
  // A self-signed test certificate for the name `public.example` (see __fixtures__), trusted only by these tests.
  const cert = readFileSync(new URL('public-example-cert.pem', fixtures), 'utf8');
  const key = readFileSync(new URL('public-example-key.pem', fixtures), 'utf8');
  const tlsServer = createHttpsServer({ cert, key }, (request, response) => {
    response.end(`tls ${request.headers.host}`);
  });
  let port = 0;
  before(async () => {
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    port = (tlsServer.address() as AddressInfo).port;
  });
  after(() => {
    tlsServer.closeAllConnections();
    tlsServer.close();
  });

  test('dials the checked address but keeps the name for SNI and certificate verification', async () => {
    const connect = loopbackConnect({ ca: cert });
    const lookup = scriptedLookup({
      'public.example': [['93.184.216.34']],
      'other.example': [['93.184.216.35']],
    });
    const fetch = createGuardedFetch({ lookup, connect });
    try {
      const response = await fetch(`https://public.example:${port}/`);
      assert.equal(await response.text(), `tls public.example:${port}`);
      assert.deepEqual(connect.dialed, [{ hostname: '93.184.216.34', servername: 'public.example' }]);
      // The certificate is for public.example: verified against the name, a different name fails.
      await assert.rejects(fetch(`https://other.example:${port}/`), (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(
          String((error as { cause?: { code?: string } }).cause?.code),
          /ERR_TLS_CERT_ALTNAME_INVALID/,
        );
        return true;
      });
    } finally {
      await fetch.close();
    }
  });
});
