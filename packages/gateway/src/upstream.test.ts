import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { readUpstreamBody, resolveUpstreams, sendUpstream } from './upstream.ts';

describe('sendUpstream', () => {
  let server: Server;
  let port = 0;
  const seen: Array<{ url: string | undefined; headers: IncomingHttpHeaders }> = [];

  before(async () => {
    server = createServer((incoming, outgoing) => {
      seen.push({ url: incoming.url, headers: incoming.headers });
      incoming.resume();
      outgoing.end('{"data":[]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('sends to the base URL’s path, with the credentials the URL carries, from the URL parsed at start', async () => {
    const [upstream] = resolveUpstreams(
      [{ name: 'local', baseUrl: `http://us%40er:p%40ss@127.0.0.1:${port}/prefix/v1//` }],
      {},
    );
    const answer = await sendUpstream({
      upstream: upstream!,
      path: '/models',
      method: 'GET',
      signal: new AbortController().signal,
      timeoutMs: 5000,
    });
    assert.equal((await readUpstreamBody(answer, 1024)).toString(), '{"data":[]}');
    const request = seen.at(-1)!;
    assert.equal(request.url, '/prefix/v1/models');
    assert.equal(request.headers.authorization, `Basic ${Buffer.from('us@er:p@ss').toString('base64')}`);
  });

  it('sends the upstream’s key as a bearer token, and to the root when the base URL has no path', async () => {
    const [upstream] = resolveUpstreams(
      [{ name: 'local', baseUrl: `http://127.0.0.1:${port}`, apiKeyEnv: 'KEY' }],
      { KEY: 'upstream-key' },
    );
    const answer = await sendUpstream({
      upstream: upstream!,
      path: '/models',
      method: 'GET',
      signal: new AbortController().signal,
      timeoutMs: 5000,
    });
    await readUpstreamBody(answer, 1024);
    const request = seen.at(-1)!;
    assert.equal(request.url, '/models');
    assert.equal(request.headers.authorization, 'Bearer upstream-key');
  });

  it('fails with the signal’s reason when it was aborted before the request, and sends nothing', async () => {
    const [upstream] = resolveUpstreams([{ name: 'local', baseUrl: `http://127.0.0.1:${port}/v1` }], {});
    const before = seen.length;
    const abort = new AbortController();
    abort.abort(new Error('the client went away'));
    await assert.rejects(
      sendUpstream({
        upstream: upstream!,
        path: '/models',
        method: 'GET',
        signal: abort.signal,
        timeoutMs: 5000,
      }),
      /the client went away/,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(seen.length, before);
  });
});
