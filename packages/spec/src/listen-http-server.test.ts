import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { listenHttpServer } from './listen-http-server.ts';

test('listens on a free loopback port by default and gives the URL the server answers at', async () => {
  const server = createServer((_request, response) => response.end('here'));
  try {
    const url = await listenHttpServer(server);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(await (await fetch(url)).text(), 'here');
    // A later server error reaches its owner's listeners: none of the start-up's is left behind.
    assert.equal(server.listenerCount('error'), 0);
  } finally {
    server.close();
  }
});

test('brackets an IPv6 host, and rejects with the server error when the port is taken', async () => {
  const first = createServer((_request, response) => response.end('v6'));
  const second = createServer();
  try {
    const url = await listenHttpServer(first, { host: '::1' });
    assert.match(url, /^http:\/\/\[::1\]:\d+$/);
    assert.equal(await (await fetch(url)).text(), 'v6');
    const port = Number(new URL(url).port);
    await assert.rejects(listenHttpServer(second, { host: '::1', port }), /EADDRINUSE/);
  } finally {
    first.close();
    second.close();
  }
});
