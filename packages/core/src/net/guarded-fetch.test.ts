import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Agent } from 'undici';
import { type LoopbackHttpServer, startLoopbackHttpServer } from '../testing/start-loopback-http-server.ts';
import { loopbackConnect, scriptedLookup } from './__fixtures__/loopback.ts';
import { createGuardedFetch, type GuardedFetchOptions } from './guarded-fetch.ts';
import { GuardedFetchError } from './guarded-fetch-error.ts';

let server: LoopbackHttpServer;

before(async () => {
  server = await startLoopbackHttpServer((request, response) => {
    if (request.url === '/close') {
      response.writeHead(200, { connection: 'close', 'content-type': 'text/plain' });
      response.end('closing');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ host: request.headers.host, method: request.method, url: request.url }));
  });
});
after(() => server.close());

/** A guarded fetch whose resolver and socket factory the test controls; every dial lands on the loopback server. */
function setup(
  answers: Record<string, ReadonlyArray<readonly string[]>>,
  options: Partial<GuardedFetchOptions> = {},
) {
  const lookup = scriptedLookup(answers);
  const connect = loopbackConnect();
  const fetch = createGuardedFetch({ lookup, connect, ...options });
  return { fetch, lookup, connect };
}

/** Runs `use` on a fresh guarded fetch and closes its connections however the test ended. */
async function closing(
  guarded: ReturnType<typeof setup>,
  use: (guarded: ReturnType<typeof setup>) => Promise<void>,
): Promise<void> {
  try {
    await use(guarded);
  } finally {
    await guarded.fetch.close();
  }
}

async function assertBlocked(
  promise: Promise<unknown>,
  code: GuardedFetchError['code'],
): Promise<GuardedFetchError> {
  const error = await promise.then(
    () => assert.fail('expected the guard to refuse the request'),
    (error: unknown) => error,
  );
  assert.ok(GuardedFetchError.isInstance(error), `expected a GuardedFetchError, got ${String(error)}`);
  assert.equal(error.code, code);
  return error;
}

describe('createGuardedFetch: names', () => {
  test('a name resolving to a public address is fetched, dialing the checked address with Host kept', async () => {
    await closing(setup({ 'public.example': [['93.184.216.34']] }), async ({ fetch, lookup, connect }) => {
      const response = await fetch(`http://public.example:${server.port}/hello?x=1`);
      assert.ok(response instanceof Response);
      assert.equal(response.status, 200);
      assert.equal(response.url, `http://public.example:${server.port}/hello?x=1`);
      assert.equal(response.redirected, false);
      assert.deepEqual(await response.json(), {
        host: `public.example:${server.port}`,
        method: 'GET',
        url: '/hello?x=1',
      });
      assert.deepEqual(lookup.calls, ['public.example']);
      assert.deepEqual(connect.dialed, [{ hostname: '93.184.216.34', servername: undefined }]);
    });
  });

  test('a name resolving to a private address is refused before any dial, naming host and reason only', async () => {
    await closing(setup({ 'internal.example': [['10.0.0.5']] }), async ({ fetch, connect }) => {
      const error = await assertBlocked(
        fetch(`http://internal.example:${server.port}/admin?api_key=QUERY-SECRET`, {
          headers: { authorization: 'Bearer HEADER-SECRET' },
        }),
        'ssrf_blocked',
      );
      assert.equal(error.host, 'internal.example');
      assert.equal(error.address, '10.0.0.5');
      assert.equal(error.category, 'private');
      assert.match(
        error.message,
        /internal\.example.*10\.0\.0\.5.*private address not allowed at level strict/,
      );
      assert.doesNotMatch(error.message, /SECRET/);
      assert.deepEqual(connect.dialed, []);
    });
  });

  test('every address of an answer is checked: one private address among public ones refuses the name', async () => {
    await closing(
      setup({
        'mixed.example': [['93.184.216.34', '2606:2800:220:1::1', '127.0.0.1']],
      }),
      async ({ fetch, connect }) => {
        const error = await assertBlocked(fetch(`http://mixed.example:${server.port}/`), 'ssrf_blocked');
        assert.equal(error.category, 'loopback');
        assert.deepEqual(connect.dialed, []);
      },
    );
  });

  test('names resolving to mapped, NAT64 or metadata addresses are refused', async () => {
    const answers = {
      'mapped.example': [['::ffff:127.0.0.1']],
      'nat64.example': [['64:ff9b::a9fe:a9fe']],
      'metadata.example': [['169.254.169.254']],
      'ula.example': [['fd00::1']],
      'cgnat.example': [['100.64.1.1']],
    };
    await closing(setup(answers), async ({ fetch, connect }) => {
      for (const name of Object.keys(answers))
        await assertBlocked(fetch(`http://${name}:${server.port}/`), 'ssrf_blocked');
      assert.deepEqual(connect.dialed, []);
    });
  });

  test('DNS rebinding: the second connection re-resolves, gets a private address and is refused', async () => {
    await closing(
      setup({ 'rebind.example': [['93.184.216.34'], ['127.0.0.1']] }),
      async ({ fetch, lookup, connect }) => {
        const first = await fetch(`http://rebind.example:${server.port}/close`);
        assert.equal(await first.text(), 'closing');
        // The server closed the connection, so the next request needs a new connection and a new lookup.
        const error = await assertBlocked(
          fetch(`http://rebind.example:${server.port}/close`),
          'ssrf_blocked',
        );
        assert.equal(error.address, '127.0.0.1');
        assert.deepEqual(lookup.calls, ['rebind.example', 'rebind.example']);
        assert.deepEqual(
          connect.dialed.map((dial) => dial.hostname),
          ['93.184.216.34'],
        );
      },
    );
  });

  test('the next checked address is tried when a connection fails', async () => {
    const lookup = scriptedLookup({ 'two.example': [['93.184.216.34', '93.184.216.35']] });
    const inner = loopbackConnect();
    const dialed: string[] = [];
    const fetch = createGuardedFetch({
      lookup,
      connect: (options, callback) => {
        dialed.push(options.hostname);
        if (options.hostname === '93.184.216.34')
          callback(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), null);
        else inner(options, callback);
      },
    });
    try {
      const response = await fetch(`http://two.example:${server.port}/`);
      assert.equal(response.status, 200);
      await response.arrayBuffer();
      assert.deepEqual(dialed, ['93.184.216.34', '93.184.216.35']);
    } finally {
      await fetch.close();
    }
  });

  test('permissive lets a name resolve to a private network, never to link-local (zone ids included)', async () => {
    await closing(
      setup(
        { 'nas.lan': [['192.168.1.20']], 'printer.lan': [['fe80::1%eth0']], 'v6.lan': [['fd12::20']] },
        { level: 'permissive' },
      ),
      async ({ fetch, connect }) => {
        for (const name of ['nas.lan', 'v6.lan']) {
          const response = await fetch(`http://${name}:${server.port}/`);
          assert.equal(response.status, 200);
          await response.arrayBuffer();
        }
        const error = await assertBlocked(fetch(`http://printer.lan:${server.port}/`), 'ssrf_blocked');
        assert.equal(error.category, 'link-local');
        assert.deepEqual(
          connect.dialed.map((dial) => dial.hostname),
          ['192.168.1.20', 'fd12::20'],
        );
      },
    );
  });

  test('a socket factory that throws fails the request instead of hanging it', async () => {
    const fetch = createGuardedFetch({
      lookup: scriptedLookup({ 'public.example': [['93.184.216.34']] }),
      connect: () => {
        throw new Error('factory broke');
      },
    });
    try {
      await assert.rejects(fetch(`http://public.example:${server.port}/`), (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(String((error as { cause?: unknown }).cause), /factory broke/);
        return true;
      });
    } finally {
      await fetch.close();
    }
  });

  test('cloud metadata names are refused without being resolved, even at the permissive level', async () => {
    await closing(
      setup({ 'metadata.google.internal': [['93.184.216.34']] }, { level: 'permissive' }),
      async ({ fetch, lookup }) => {
        const error = await assertBlocked(
          fetch('http://metadata.google.internal/computeMetadata/v1/'),
          'ssrf_blocked',
        );
        assert.equal(error.category, 'cloud-metadata');
        assert.deepEqual(lookup.calls, []);
      },
    );
  });

  test("a name that does not resolve is the guard's refusal (host_unresolvable), like every other", async () => {
    const { fetch, connect } = setup({ 'empty.example': [[]] });
    const throwing = createGuardedFetch({
      lookup: () => {
        throw new Error('resolver broke');
      },
      connect,
    });
    try {
      const missing = await assertBlocked(
        fetch(`http://missing.example:${server.port}/`),
        'host_unresolvable',
      );
      assert.equal(missing.host, 'missing.example');
      assert.match(missing.message, /did not resolve.*ENOTFOUND/);
      await assertBlocked(fetch(`http://empty.example:${server.port}/`), 'host_unresolvable');
      await assertBlocked(throwing(`http://public.example:${server.port}/`), 'host_unresolvable');
      assert.deepEqual(connect.dialed, []);
    } finally {
      await fetch.close();
      await throwing.close();
    }
  });

  test('names internal by name are refused unresolved at every level, whatever DNS would answer', async () => {
    const internalNames = [
      'localhost',
      'LOCALHOST.',
      'api.localhost',
      'metadata',
      'metadata.goog',
      'instance-data.ec2.internal',
      'api.metadata.cloud.ibm.com',
      'kubernetes',
      'kubernetes.default',
      'kubernetes.default.svc',
      'kubernetes.default.svc.cluster.local',
      'redis.prod.svc',
      'redis.prod.svc.cluster.local',
      '10-0-0-1.prod.pod.cluster.local',
    ];
    const answers = Object.fromEntries(
      internalNames.map((name) => [name.toLowerCase(), [['93.184.216.34']]]),
    );
    for (const level of ['strict', 'permissive'] as const) {
      await closing(setup(answers, { level }), async ({ fetch, lookup, connect }) => {
        for (const name of internalNames) {
          const error = await assertBlocked(fetch(`http://${name}:${server.port}/`), 'ssrf_blocked');
          assert.match(error.message, /host name/, `${name} at ${level}`);
        }
        assert.deepEqual(lookup.calls, []);
        assert.deepEqual(connect.dialed, []);
      });
    }
  });

  test('an internal name the allow list names exactly is resolved and checked like any other', async () => {
    await closing(
      setup(
        { 'mcp.tools.svc.cluster.local': [['10.0.0.7']] },
        { level: 'permissive', allow: ['mcp.tools.svc.cluster.local'] },
      ),
      async ({ fetch, connect }) => {
        const response = await fetch(`http://mcp.tools.svc.cluster.local:${server.port}/`);
        assert.equal(response.status, 200);
        assert.deepEqual(
          connect.dialed.map((dial) => dial.hostname),
          ['10.0.0.7'],
        );
        await assertBlocked(fetch(`http://other.tools.svc.cluster.local:${server.port}/`), 'ssrf_blocked');
      },
    );
  });

  test('a public host is reachable on the ports the fetch standard blocks for browsers, with its real Host', async () => {
    const dialed: string[] = [];
    const inner = loopbackConnect();
    const fetch = createGuardedFetch({
      lookup: scriptedLookup({ 'public.example': [['93.184.216.34']] }),
      // Dials the loopback server whatever port was asked, recording the asked one.
      connect: (options, callback) => {
        dialed.push(`${options.hostname}:${options.port}`);
        inner({ ...options, port: String(server.port) }, callback);
      },
    });
    try {
      for (const port of [6000, 10080, 25]) {
        const response = await fetch(`http://public.example:${port}/p?q=1`, { method: 'POST', body: 'x' });
        assert.equal(response.status, 200);
        assert.equal(response.url, `http://public.example:${port}/p?q=1`);
        assert.deepEqual(await response.json(), {
          host: `public.example:${port}`,
          method: 'POST',
          url: '/p?q=1',
        });
      }
      const again = await fetch('http://public.example:6000/again');
      assert.equal((await again.json()).host, 'public.example:6000');
      assert.deepEqual(dialed.slice(0, 3), ['93.184.216.34:6000', '93.184.216.34:10080', '93.184.216.34:25']);
      assert.ok(dialed.every((entry) => !entry.endsWith(':80') && !entry.endsWith(':')));
    } finally {
      await fetch.close();
    }
  });

  test("an internal address is the guard's refusal even on a port fetch would refuse on its own", async () => {
    await closing(setup({}), async ({ fetch }) => {
      const error = await assertBlocked(fetch('http://127.0.0.1:6000/'), 'ssrf_blocked');
      assert.equal(error.category, 'loopback');
      await assertBlocked(fetch('http://metadata.google.internal:25/'), 'ssrf_blocked');
    });
  });
});

describe('createGuardedFetch with the default resolver and socket factory', () => {
  test('localhost resolves (through the OS) to loopback and is refused; allowed by name it is fetched', async () => {
    const guarded = createGuardedFetch();
    const allowed = createGuardedFetch({ allow: ['localhost'] });
    try {
      const before = server.received.length;
      const error = await assertBlocked(guarded(`http://localhost:${server.port}/`), 'ssrf_blocked');
      assert.equal(error.category, 'loopback');
      assert.equal(server.received.length, before);
      const response = await allowed(`http://localhost:${server.port}/default`);
      assert.equal(((await response.json()) as { url: string }).url, '/default');
    } finally {
      await guarded.close();
      await allowed.close();
    }
  });
});

describe('createGuardedFetch: IP literals in URLs', () => {
  const refusedEverywhere = [
    'http://169.254.169.254/latest/meta-data/',
    'http://2852039166/latest/meta-data/',
    'http://0251.0376.0251.0376/',
    'http://0xa9.0xfe.0xa9.0xfe/',
    'http://[::ffff:169.254.169.254]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[fd00:ec2::254]/',
    'http://100.100.100.200/',
    'http://168.63.129.16/',
    'http://169.254.1.1/',
    'http://[fe80::1]/',
    'http://0.0.0.0/',
    'http://[::]/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
  ];
  const refusedWhenStrict = [
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://127.1/',
    'http://127.0.0.1./',
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::ffff:0:7f00:1]/',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::1]/',
    'http://10.0.0.1/',
    'http://192.168.0.1/',
    'http://172.16.0.1/',
    'http://100.64.0.1/',
    'http://[fd12::1]/',
    'http://[fec0::1]/',
  ];

  for (const url of [...refusedEverywhere, ...refusedWhenStrict]) {
    test(`strict refuses ${url}`, async () => {
      await closing(setup({}), async ({ fetch, lookup, connect }) => {
        await assertBlocked(fetch(url), 'ssrf_blocked');
        assert.deepEqual(lookup.calls, [], 'an IP literal is never resolved');
        assert.deepEqual(connect.dialed, []);
      });
    });
  }

  for (const url of refusedEverywhere) {
    test(`permissive still refuses ${url}`, async () => {
      await closing(setup({}, { level: 'permissive' }), async ({ fetch, connect }) => {
        await assertBlocked(fetch(url), 'ssrf_blocked');
        assert.deepEqual(connect.dialed, []);
      });
    });
  }

  test('a zone id in a URL is no valid URL (WHATWG) and never reaches the network', async () => {
    await closing(setup({}, { level: 'permissive' }), async ({ fetch, connect }) => {
      await assert.rejects(fetch('http://[fe80::1%25eth0]/'), TypeError);
      assert.deepEqual(connect.dialed, []);
    });
  });

  test('permissive lets loopback and private literals through (to the loopback server)', async () => {
    await closing(setup({}, { level: 'permissive' }), async ({ fetch, connect }) => {
      for (const host of ['127.0.0.1', '0x7f.1', '[::ffff:7f00:1]', '10.0.0.1', '[::1]']) {
        const response = await fetch(`http://${host}:${server.port}/`);
        assert.equal(response.status, 200, host);
        await response.arrayBuffer();
      }
      assert.deepEqual(
        connect.dialed.map((dial) => dial.hostname),
        ['127.0.0.1', '127.0.0.1', '::ffff:7f00:1', '10.0.0.1', '::1'],
      );
    });
  });

  test('an allowed CIDR block exempts exactly that block', async () => {
    await closing(setup({}, { allow: ['127.0.0.1/32'] }), async ({ fetch }) => {
      const response = await fetch(`http://127.0.0.1:${server.port}/`);
      assert.equal(response.status, 200);
      await response.arrayBuffer();
      await assertBlocked(fetch(`http://127.0.0.2:${server.port}/`), 'ssrf_blocked');
      await assertBlocked(fetch('http://169.254.169.254/'), 'ssrf_blocked');
    });
  });

  test('an allowed name exempts what it resolves to, except cloud metadata', async () => {
    await closing(
      setup({ 'mcp.test': [['127.0.0.1'], ['169.254.169.254']] }, { allow: ['mcp.test'] }),
      async ({ fetch }) => {
        const response = await fetch(`http://mcp.test:${server.port}/close`);
        assert.equal(await response.text(), 'closing');
        const error = await assertBlocked(fetch(`http://mcp.test:${server.port}/`), 'ssrf_blocked');
        assert.equal(error.category, 'cloud-metadata');
      },
    );
  });
});

describe('createGuardedFetch: schemes', () => {
  for (const url of [
    'file:///etc/passwd',
    'ftp://public.example/file',
    'data:text/plain,hello',
    'gopher://public.example:70/_x',
    'blob:http://public.example/1',
    'ws://public.example/',
  ]) {
    test(`refuses ${url.slice(0, url.indexOf(':') + 1)}`, async () => {
      await closing(setup({ 'public.example': [['93.184.216.34']] }), async ({ fetch, lookup, connect }) => {
        const error = await assertBlocked(fetch(url), 'scheme_not_allowed');
        assert.match(error.message, /Refused URL scheme/);
        assert.deepEqual(lookup.calls, []);
        assert.deepEqual(connect.dialed, []);
      });
    });
  }

  test('a dispatcher passed in init cannot bypass the guard; integrity is refused, not dropped', async () => {
    const { fetch, connect } = setup({});
    const bypass = new Agent();
    const received = server.received.length;
    try {
      const init = { dispatcher: bypass } as RequestInit;
      await assertBlocked(fetch(`http://127.0.0.1:${server.port}/`, init), 'ssrf_blocked');
      assert.equal(server.received.length, received, 'the loopback server was never reached');
      await assert.rejects(fetch(`http://127.0.0.1:${server.port}/`, { integrity: 'sha256-abc' }), TypeError);
      assert.deepEqual(connect.dialed, []);
    } finally {
      await fetch.close();
      await bypass.close();
    }
  });

  test('a URL with credentials is refused without quoting them', async () => {
    await closing(setup({ 'public.example': [['93.184.216.34']] }), async ({ fetch, connect }) => {
      for (const url of ['http://user:pass-SECRET@public.example/', 'http://SECRET@public.example/']) {
        const error = await assertBlocked(fetch(url), 'credentials_in_url');
        assert.doesNotMatch(error.message, /SECRET/);
      }
      assert.deepEqual(connect.dialed, []);
    });
  });

  test('rejects a bad maxRedirects at creation', () => {
    assert.throws(() => createGuardedFetch({ maxRedirects: -1 }), TypeError);
    assert.throws(() => createGuardedFetch({ allow: ['not a host!'] }), TypeError);
  });
});
