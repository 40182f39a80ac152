// The MCP client with the real SSRF guard (`createGuardedFetch` from @toolbus/core/node) as its fetch: a server URL at
// the cloud metadata address, a redirect to it, and a server whose OAuth challenge points discovery at it are all
// refused. The guard's socket factory here only ever dials 127.0.0.1: a broken guard could not reach anything else.

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { GuardedFetchError } from '@toolbus/core';
import { createGuardedFetch } from '@toolbus/core/node';
import type { FetchFunction } from '@toolbus/spec';
import { buildConnector } from 'undici';
import { connectMcpServer } from './connect-mcp-server.ts';
import { createInMemoryMcpTokenStore } from './mcp-token-store.ts';

type GuardOptions = NonNullable<Parameters<typeof createGuardedFetch>[0]>;

/** A socket factory that dials 127.0.0.1 only and records every address it was asked for. */
function loopbackOnlyConnect(): { connect: NonNullable<GuardOptions['connect']>; asked: string[] } {
  const asked: string[] = [];
  const real = buildConnector({});
  const connect: NonNullable<GuardOptions['connect']> = (options, callback) => {
    asked.push(options.hostname);
    if (options.hostname !== '127.0.0.1') {
      callback(new Error(`test connector refuses to dial ${options.hostname}`), null);
      return;
    }
    real(options, callback);
  };
  return { connect, asked };
}

/** Wraps a fetch to record each request's URL and how it ended. */
function outcomes(inner: FetchFunction): { fetch: FetchFunction; seen: { url: string; error?: unknown }[] } {
  const seen: { url: string; error?: unknown }[] = [];
  return {
    seen,
    fetch: async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      try {
        const response = await inner(input, init);
        seen.push({ url });
        return response;
      } catch (error) {
        seen.push({ url, error });
        throw error;
      }
    },
  };
}

const metadataHost = '169.254.169.254';

describe('MCP client through the guarded fetch', () => {
  let server: Server;
  let base: string;
  before(async () => {
    server = createServer((request, response) => {
      if (request.url?.startsWith('/redirect')) {
        response.writeHead(307, { location: `http://${metadataHost}/latest/meta-data/` }).end();
        return;
      }
      // An MCP endpoint demanding OAuth whose resource metadata "lives" at the metadata address.
      response
        .writeHead(401, {
          'www-authenticate': `Bearer resource_metadata="http://${metadataHost}/.well-known/oauth-protected-resource"`,
        })
        .end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );

  for (const url of [
    `http://${metadataHost}/mcp`,
    'http://2852039166/mcp',
    'http://[::ffff:169.254.169.254]/mcp',
  ]) {
    test(`a server URL at the metadata address is refused (${url})`, async () => {
      const { connect, asked } = loopbackOnlyConnect();
      const guarded = createGuardedFetch({ level: 'permissive', connect });
      try {
        await assert.rejects(
          () =>
            connectMcpServer(
              { id: 'm', name: 'm', transport: { type: 'streamable-http', url } },
              { fetch: guarded },
            ),
          (error: unknown) => GuardedFetchError.isInstance(error) && error.code === 'ssrf_blocked',
        );
        assert.deepEqual(asked, []);
      } finally {
        await guarded.close();
      }
    });
  }

  test('a redirect to the metadata address is not followed, and the guard refuses it too', async () => {
    const { connect, asked } = loopbackOnlyConnect();
    const guarded = createGuardedFetch({ allow: ['127.0.0.1/32'], connect });
    try {
      await assert.rejects(() =>
        connectMcpServer(
          { id: 'r', name: 'r', transport: { type: 'streamable-http', url: `${base}/redirect/mcp` } },
          { fetch: guarded },
        ),
      );
      // The same fetch, left to follow the redirect itself, refuses the hop.
      await assert.rejects(
        () => guarded(`${base}/redirect/mcp`),
        (error: unknown) => GuardedFetchError.isInstance(error) && error.code === 'ssrf_blocked',
      );
      assert.ok(asked.length > 0);
      assert.ok(asked.every((address) => address === '127.0.0.1'));
    } finally {
      await guarded.close();
    }
  });

  test('OAuth discovery that the server points at the metadata address is refused by the guard', async () => {
    const { connect, asked } = loopbackOnlyConnect();
    const guarded = createGuardedFetch({ allow: ['127.0.0.1/32'], connect });
    const recorded = outcomes(guarded);
    try {
      await assert.rejects(() =>
        connectMcpServer(
          {
            id: 'o',
            name: 'o',
            transport: { type: 'streamable-http', url: `${base}/mcp` },
            auth: { type: 'oauth' },
          },
          {
            fetch: recorded.fetch,
            oauth: {
              tokenStore: createInMemoryMcpTokenStore(),
              userId: 'u',
              redirectUrl: 'http://127.0.0.1:1/callback',
            },
          },
        ),
      );
      const toMetadata = recorded.seen.filter((entry) => new URL(entry.url).hostname === metadataHost);
      assert.ok(toMetadata.length > 0, 'the SDK never tried the discovery URL');
      for (const entry of toMetadata) {
        assert.ok(GuardedFetchError.isInstance(entry.error) && entry.error.code === 'ssrf_blocked');
      }
      assert.ok(asked.every((address) => address === '127.0.0.1'));
    } finally {
      await guarded.close();
    }
  });
});
