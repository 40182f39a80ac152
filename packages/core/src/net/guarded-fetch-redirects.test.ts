import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type LoopbackHttpServer, startLoopbackHttpServer } from '../testing/start-loopback-http-server.ts';
import { loopbackConnect, scriptedLookup } from './__fixtures__/loopback.ts';
import { createGuardedFetch, type GuardedFetchOptions } from './guarded-fetch.ts';
import { GuardedFetchError } from './guarded-fetch-error.ts';

let server: LoopbackHttpServer;

// Routes: /to?status=302&location=<url> redirects there; /chain/<n> redirects to /chain/<n-1> until 0; others echo.
before(async () => {
  server = await startLoopbackHttpServer((request, response) => {
    const url = new URL(request.url, 'http://loopback');
    if (url.pathname === '/to') {
      response.writeHead(Number(url.searchParams.get('status') ?? 302), {
        location: url.searchParams.get('location') ?? '',
      });
      response.end();
      return;
    }
    const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
    if (chain !== null && Number(chain[1]) > 0) {
      response.writeHead(302, { location: `/chain/${Number(chain[1]) - 1}` });
      response.end();
      return;
    }
    if (url.pathname === '/no-location') {
      response.writeHead(302);
      response.end('no location');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        host: request.headers.host,
        method: request.method,
        url: request.url,
        body: request.body,
        authorization: request.headers.authorization ?? null,
        cookie: request.headers.cookie ?? null,
        contentType: request.headers['content-type'] ?? null,
      }),
    );
  });
});
after(() => server.close());

/** `mcp.test` and `other.test` are allow-listed names that resolve to the loopback server; nothing else is allowed. */
function setup(options: Partial<GuardedFetchOptions> = {}) {
  const lookup = scriptedLookup({
    'mcp.test': [['127.0.0.1']],
    'other.test': [['127.0.0.1']],
    localhost: [['127.0.0.1']],
  });
  const connect = loopbackConnect();
  const fetch = createGuardedFetch({ lookup, connect, allow: ['mcp.test', 'other.test'], ...options });
  return { fetch, lookup, connect };
}

function redirectUrl(location: string, status = 302): string {
  return `http://mcp.test:${server.port}/to?status=${status}&location=${encodeURIComponent(location)}`;
}

async function guardError(promise: Promise<unknown>): Promise<GuardedFetchError> {
  const error = await promise.then(
    () => assert.fail('expected a refusal'),
    (error: unknown) => error,
  );
  assert.ok(GuardedFetchError.isInstance(error), `expected a GuardedFetchError, got ${String(error)}`);
  return error;
}

describe('createGuardedFetch: redirects', () => {
  test('a redirect to another allowed host is followed and reported', async () => {
    const { fetch } = setup();
    try {
      const response = await fetch(redirectUrl(`http://other.test:${server.port}/landing#frag`));
      assert.equal(response.status, 200);
      assert.equal(response.redirected, true);
      assert.equal(response.url, `http://other.test:${server.port}/landing`);
      const body = (await response.json()) as { host: string; url: string };
      assert.equal(body.host, `other.test:${server.port}`);
      assert.equal(body.url, '/landing');
    } finally {
      await fetch.close();
    }
  });

  const internalTargets = () => [
    `http://127.0.0.1:${server.port}/ok`,
    `http://0x7f.1:${server.port}/ok`,
    `http://2130706433:${server.port}/ok`,
    `http://[::ffff:127.0.0.1]:${server.port}/ok`,
    `http://[::1]:${server.port}/ok`,
    `http://localhost:${server.port}/ok`,
    'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
    'http://[fd00:ec2::254]/latest/meta-data/',
    'http://metadata.google.internal/computeMetadata/v1/',
  ];
  test('redirects from an allowed host to internal addresses are refused at the hop', async () => {
    const { fetch, connect } = setup();
    try {
      for (const target of internalTargets()) {
        for (const status of [301, 302, 303, 307, 308]) {
          const before = server.received.length;
          const error = await guardError(fetch(redirectUrl(target, status)));
          assert.equal(error.code, 'ssrf_blocked', target);
          assert.equal(server.received.length, before + 1, 'only the redirecting hop reached a server');
        }
      }
      assert.ok(connect.dialed.every((dial) => dial.hostname === '127.0.0.1'));
    } finally {
      await fetch.close();
    }
  });

  test('the permissive level still refuses a redirect to cloud metadata', async () => {
    const { fetch } = setup({ level: 'permissive' });
    try {
      const error = await guardError(fetch(redirectUrl('http://169.254.169.254/latest/meta-data/')));
      assert.equal(error.code, 'ssrf_blocked');
      assert.equal(error.category, 'cloud-metadata');
      const allowed = await fetch(redirectUrl(`http://127.0.0.1:${server.port}/ok`));
      assert.equal(allowed.status, 200);
      await allowed.arrayBuffer();
    } finally {
      await fetch.close();
    }
  });

  for (const target of [
    'file:///etc/passwd',
    'ftp://mcp.test/x',
    'data:text/plain,owned',
    'gopher://mcp.test:70/_x',
  ]) {
    test(`a redirect to ${target.slice(0, target.indexOf(':') + 1)} is refused`, async () => {
      const { fetch } = setup();
      try {
        const error = await guardError(fetch(redirectUrl(target)));
        assert.equal(error.code, 'scheme_not_allowed');
      } finally {
        await fetch.close();
      }
    });
  }

  test('ten redirects are followed by default, the eleventh is refused', async () => {
    const { fetch } = setup();
    try {
      const ten = await fetch(`http://mcp.test:${server.port}/chain/10`);
      assert.equal(ten.status, 200);
      assert.equal(((await ten.json()) as { url: string }).url, '/chain/0');
      const before = server.received.length;
      const error = await guardError(fetch(`http://mcp.test:${server.port}/chain/11`));
      assert.equal(error.code, 'too_many_redirects');
      assert.equal(server.received.length - before, 11);
    } finally {
      await fetch.close();
    }
  });

  test('the redirect cap is configurable', async () => {
    const { fetch } = setup({ maxRedirects: 2 });
    try {
      const two = await fetch(`http://mcp.test:${server.port}/chain/2`);
      assert.equal(two.status, 200);
      await two.arrayBuffer();
      assert.equal(
        (await guardError(fetch(`http://mcp.test:${server.port}/chain/3`))).code,
        'too_many_redirects',
      );
    } finally {
      await fetch.close();
    }
    const none = setup({ maxRedirects: 0 });
    try {
      assert.equal(
        (await guardError(none.fetch(`http://mcp.test:${server.port}/chain/1`))).code,
        'too_many_redirects',
      );
    } finally {
      await none.fetch.close();
    }
  });

  test("redirect: 'manual' returns the redirect itself, even towards a refused address", async () => {
    const { fetch } = setup();
    try {
      const response = await fetch(redirectUrl('http://169.254.169.254/'), { redirect: 'manual' });
      assert.equal(response.status, 302);
      assert.equal(response.headers.get('location'), 'http://169.254.169.254/');
      assert.equal(response.redirected, false);
    } finally {
      await fetch.close();
    }
  });

  test("redirect: 'error' rejects with a network error", async () => {
    const { fetch } = setup();
    try {
      await assert.rejects(
        fetch(redirectUrl(`http://mcp.test:${server.port}/ok`), { redirect: 'error' }),
        TypeError,
      );
    } finally {
      await fetch.close();
    }
  });

  test('a redirect status without Location is returned as is', async () => {
    const { fetch } = setup();
    try {
      const response = await fetch(`http://mcp.test:${server.port}/no-location`);
      assert.equal(response.status, 302);
      assert.equal(await response.text(), 'no location');
    } finally {
      await fetch.close();
    }
  });

  test('303 turns a POST into a GET without body; 307 and 308 resend the body; 301/302 turn POST into GET', async () => {
    const { fetch } = setup();
    const target = `http://mcp.test:${server.port}/landing`;
    type Echo = { method: string; body: string; contentType: string | null };
    try {
      const post = { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } };
      const see = (await (await fetch(redirectUrl(target, 303), post)).json()) as Echo;
      assert.deepEqual([see.method, see.body, see.contentType], ['GET', '', null]);
      for (const status of [307, 308]) {
        const kept = (await (await fetch(redirectUrl(target, status), post)).json()) as Echo;
        assert.deepEqual(
          [kept.method, kept.body, kept.contentType],
          ['POST', '{"a":1}', 'application/json'],
          String(status),
        );
      }
      for (const status of [301, 302]) {
        const moved = (await (await fetch(redirectUrl(target, status), post)).json()) as Echo;
        assert.deepEqual([moved.method, moved.body], ['GET', ''], String(status));
      }
      const put = (await (
        await fetch(redirectUrl(target, 302), { method: 'PUT', body: 'x' })
      ).json()) as Echo;
      assert.deepEqual([put.method, put.body], ['PUT', 'x']);
    } finally {
      await fetch.close();
    }
  });

  test('a 307 cannot resend a streamed body and says so', async () => {
    const { fetch } = setup();
    try {
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('streamed'));
          controller.close();
        },
      });
      const init = { method: 'POST', body, duplex: 'half' } as RequestInit;
      const error = await guardError(fetch(redirectUrl(`http://mcp.test:${server.port}/landing`, 307), init));
      assert.equal(error.code, 'redirect_body_not_replayable');
    } finally {
      await fetch.close();
    }
  });

  test('credentials follow a same-origin redirect but not a cross-origin one', async () => {
    const { fetch } = setup();
    const headers = { authorization: 'Bearer token-1', cookie: 'session=1' };
    type Echo = { authorization: string | null; cookie: string | null };
    try {
      const same = (await (await fetch(redirectUrl('/landing'), { headers })).json()) as Echo;
      assert.deepEqual(same, { ...same, authorization: 'Bearer token-1', cookie: 'session=1' });
      const cross = (await (
        await fetch(redirectUrl(`http://other.test:${server.port}/landing`), { headers })
      ).json()) as Echo;
      assert.equal(cross.authorization, null);
      assert.equal(cross.cookie, null);
    } finally {
      await fetch.close();
    }
  });
});
