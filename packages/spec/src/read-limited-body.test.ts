import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { readLimitedBody } from './read-limited-body.ts';

// A real HTTP server on loopback: `/fixed/N` sends N bytes; `/endless` never stops; `/stall` sends 10 bytes and
// then nothing (it keeps the connection open).
let server: Server;
let base: string;
let endlessClosed: Promise<void>;

before(async () => {
  let markClosed: () => void = () => {};
  endlessClosed = new Promise((resolve) => {
    markClosed = resolve;
  });
  server = createServer((request, response) => {
    const url = request.url ?? '/';
    if (url.startsWith('/fixed/')) {
      response.end(Buffer.alloc(Number(url.slice('/fixed/'.length)), 'x'));
    } else if (url === '/endless') {
      const chunk = Buffer.alloc(16 * 1024, 'y');
      const timer = setInterval(() => response.write(chunk), 1);
      response.on('close', () => {
        clearInterval(timer);
        markClosed();
      });
    } else {
      response.write(Buffer.alloc(10, 'z'));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('readLimitedBody', () => {
  test('a body within the limit is read whole', async () => {
    const { bytes, truncated } = await readLimitedBody(await fetch(`${base}/fixed/1000`), 1000);
    assert.equal(bytes.byteLength, 1000);
    assert.equal(truncated, false);
  });

  test('a longer body is cut at the limit, marked truncated, and the rest is not read', async () => {
    const { bytes, truncated } = await readLimitedBody(await fetch(`${base}/fixed/5000`), 1234);
    assert.equal(bytes.byteLength, 1234);
    assert.equal(truncated, true);
    assert.ok(bytes.every((byte) => byte === 'x'.charCodeAt(0)));
  });

  test('an endless body ends at the limit and the stream is cancelled (the server sees the close)', async () => {
    const { bytes, truncated } = await readLimitedBody(await fetch(`${base}/endless`), 100_000);
    assert.equal(bytes.byteLength, 100_000);
    assert.equal(truncated, true);
    await endlessClosed;
  });

  test('an abort ends a stalled read with the signal reason', async () => {
    const controller = new AbortController();
    const response = await fetch(`${base}/stall`);
    const reading = readLimitedBody(response, 1000, controller.signal);
    const reason = new Error('deadline');
    setTimeout(() => controller.abort(reason), 20);
    await assert.rejects(reading, (error) => error === reason);
  });

  test('a response without a body reads as empty', async () => {
    const { bytes, truncated } = await readLimitedBody(new Response(null, { status: 204 }), 10);
    assert.equal(bytes.byteLength, 0);
    assert.equal(truncated, false);
  });
});
