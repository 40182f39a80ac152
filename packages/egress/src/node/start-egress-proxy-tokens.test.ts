import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { egressTokenPreamble } from '@toolbus/spec';
import type { ConnectedApp } from '../decision/egress-catalogue.ts';
import { formatEgressLogLine } from '../decision/egress-logger.ts';
import type { EgressIdentity } from '../decision/egress-request.ts';
import { createConnectedAppResolver } from '../resolvers/create-connected-app-resolver.ts';
import { requestThroughProxy } from './__fixtures__/request-through-proxy.ts';
import { startTestUpstream, type TestUpstream } from './__fixtures__/start-test-upstream.ts';
import { type CertificateAuthority, loadOrCreateCertificateAuthority } from './certificate-authority.ts';
import { deriveEgressTokenKey, mintEgressRunToken as mint } from './egress-run-token.ts';
import { createLeafCertificateCache } from './leaf-certificate-cache.ts';
import { type EgressProxy, startEgressProxy } from './start-egress-proxy.ts';

const root = mkdtempSync(join(tmpdir(), 'toolbus-egress-tokens-'));
const key = deriveEgressTokenKey(new Uint8Array(randomBytes(32)));
const userTokens: Record<string, string> = { 'user-1': 'tok-ALICE-111', 'user-2': 'tok-BOB-222' };
const logLines: string[] = [];
const identified: EgressIdentity[] = [];
let clock = Date.now();
let proxyCa: CertificateAuthority;
let upstream: TestUpstream;
let plainUpstream: TestUpstream;
let proxy: EgressProxy;
let proxyPort: number;
const relays: Server[] = [];

function app(port: number): ConnectedApp {
  return {
    id: 1,
    name: 'tracker',
    urlPatterns: [`https://api\\.test:${port}/.*`, 'http://plain\\.test:\\d+/.*'],
    usable: true,
    actions: [{ name: 'any', pathPattern: '/.*', policy: 'ALWAYS' }],
  };
}

/** A loopback stand-in for the interpreter's relay: writes `line` first, then pipes the client's bytes. */
async function relayWith(line: string | undefined): Promise<number> {
  const server = createServer((client) => {
    const upstreamSocket = connect({ host: '127.0.0.1', port: proxyPort });
    if (line !== undefined) upstreamSocket.write(line);
    client.pipe(upstreamSocket);
    upstreamSocket.pipe(client);
    client.on('error', () => upstreamSocket.destroy());
    upstreamSocket.on('error', () => client.destroy());
  });
  relays.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const minted: string[] = [];
/** Mints and remembers a token, so the log check below can look for every one of them. */
function mintEgressRunToken(options: Parameters<typeof mint>[0]): string {
  const token = mint(options);
  minted.push(token);
  return token;
}

const tokenLine = (token: string): string => `${egressTokenPreamble}${token}\r\n`;

before(async () => {
  proxyCa = await loadOrCreateCertificateAuthority({ directory: join(root, 'proxy-ca') });
  const upstreamCa = await loadOrCreateCertificateAuthority({ directory: join(root, 'upstream-ca') });
  upstream = await startTestUpstream(createLeafCertificateCache(upstreamCa));
  plainUpstream = await startTestUpstream();
  proxy = startEgressProxy({
    authority: proxyCa,
    upstreamTrustedCa: [upstreamCa.certificatePem],
    runTokens: { key, now: () => clock },
    context: {
      // The address source knows no pod at 127.0.0.1: without a token, a connection is unidentified.
      identify: () => undefined,
      resolveHost: async (name) => {
        if (name === 'api.test' || name === 'plain.test') return ['127.0.0.1'];
        throw new Error('ENOTFOUND');
      },
      addressPolicy: { level: 'strict', allow: ['api.test', 'plain.test'] },
      connectedApps: (identity) => {
        identified.push(identity);
        return [app(upstream.port)];
      },
      mcpServers: () => [],
      credentialResolvers: [
        createConnectedAppResolver({
          template: () => ({ Authorization: 'Bearer {{user.token}}' }),
          userValues: (_app, userId) => ({ token: userTokens[userId] ?? '' }),
        }),
      ],
      logger: (event, fields) => logLines.push(formatEgressLogLine(event, fields)),
    },
  });
  proxyPort = (await proxy.listen({ port: 0, host: '127.0.0.1' })).port ?? 0;
});

after(async () => {
  for (const relay of relays) relay.close();
  await proxy.drain();
  await upstream.close();
  await plainUpstream.close();
  rmSync(root, { recursive: true, force: true });
});

describe('startEgressProxy with run tokens', { timeout: 60_000 }, () => {
  it("identifies each connection by its verified token and injects that user's credential", async () => {
    for (const [userId, organizationId] of [
      ['user-1', 'org-1'],
      ['user-2', 'org-2'],
    ] as const) {
      const token = mintEgressRunToken({
        key,
        identity: { userId, organizationId, sessionId: `chat-${userId}`, tag: `call-${userId}` },
        ttlMs: 60_000,
        now: clock,
      });
      const port = await relayWith(tokenLine(token));
      // HTTPS (intercepted) and plain HTTP on a token connection are identified the same way.
      for (const [url, target] of [
        [`https://api.test:${upstream.port}/items`, upstream],
        [`http://plain.test:${plainUpstream.port}/x`, plainUpstream],
      ] as const) {
        const response = await requestThroughProxy({ proxy: { port }, url, ca: proxyCa.certificatePem });
        assert.equal(response.status, 200, response.body);
        assert.equal(target.seen.at(-1)?.headers.authorization, `Bearer ${userTokens[userId]}`, url);
        const identity = identified.at(-1);
        assert.equal(identity?.userId, userId);
        assert.equal(identity?.organizationId, organizationId);
        assert.equal(identity?.sessionId, `chat-${userId}`);
        assert.equal(identity?.tag, `call-${userId}`);
      }
    }
  });

  it('refuses forged, expired and malformed tokens with a 407, and no token by address (403)', async () => {
    const token = mintEgressRunToken({ key, identity: { userId: 'user-1' }, ttlMs: 60_000, now: clock });
    const [version, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    const forged = `${version}.${Buffer.from(JSON.stringify({ ...claims, uid: 'user-2' })).toString('base64url')}.${signature}`;
    const otherKey = deriveEgressTokenKey(new Uint8Array(randomBytes(32)));
    const foreign = mintEgressRunToken({
      key: otherKey,
      identity: { userId: 'user-2' },
      ttlMs: 60_000,
      now: clock,
    });
    const expired = mintEgressRunToken({
      key,
      identity: { userId: 'user-2' },
      ttlMs: 1000,
      now: clock - 2000,
    });
    const cases: Array<[string | undefined, number, string | undefined]> = [
      [tokenLine(forged), 407, 'bad_signature'],
      [tokenLine(foreign), 407, 'bad_signature'],
      [tokenLine(expired), 407, 'expired'],
      [tokenLine('not-a-token'), 407, 'malformed'],
      [`${egressTokenPreamble}\r\n`, 407, 'malformed'],
      [undefined, 403, undefined],
    ];
    const before = upstream.seen.length + plainUpstream.seen.length;
    for (const [line, status, reason] of cases) {
      const port = await relayWith(line);
      for (const url of [
        `https://api.test:${upstream.port}/items`,
        `http://plain.test:${plainUpstream.port}/x`,
      ]) {
        const response = await requestThroughProxy({ proxy: { port }, url, ca: proxyCa.certificatePem });
        assert.equal(response.status, status, `${reason} ${url}: ${response.body}`);
        const body = JSON.parse(response.body);
        if (reason === undefined) assert.equal(body.error, 'unidentified_sandbox');
        else {
          assert.equal(body.error, 'egress_token_refused');
          assert.equal(body.reason, reason);
          assert.equal(response.headers['proxy-authenticate'], 'Toolbus-Egress-Token');
        }
      }
    }
    assert.equal(
      upstream.seen.length + plainUpstream.seen.length,
      before,
      'nothing refused reached the upstream',
    );
    assert.ok(logLines.some((line) => line.includes('egress_token_refused')));
  });

  it('stops serving a kept-alive connection once its token expires', async () => {
    const token = mintEgressRunToken({ key, identity: { userId: 'user-1' }, ttlMs: 5_000, now: clock });
    const port = await relayWith(tokenLine(token));
    const socket = connect({ host: '127.0.0.1', port });
    const exchange = (path: string): Promise<string> =>
      new Promise((resolve) => {
        let text = '';
        const onData = (chunk: Buffer): void => {
          text += chunk.toString();
          const [head, body = ''] = text.split('\r\n\r\n');
          const length = Number(/content-length: (\d+)/i.exec(head ?? '')?.[1] ?? -1);
          // The upstream answers chunked, a refusal with a length.
          if ((length >= 0 && Buffer.byteLength(body) >= length) || text.endsWith('\r\n0\r\n\r\n')) {
            socket.off('data', onData);
            resolve(text);
          }
        };
        socket.on('data', onData);
        socket.write(
          `GET http://plain.test:${plainUpstream.port}${path} HTTP/1.1\r\nHost: plain.test\r\n\r\n`,
        );
      });
    assert.match(await exchange('/first'), /^HTTP\/1\.1 200/);
    clock += 6_000;
    const second = await exchange('/second');
    assert.match(second, /^HTTP\/1\.1 407/);
    assert.match(second, /"reason":"expired"/);
    socket.destroy();
  });

  it('never writes a token or a credential into its log lines', () => {
    const everything = logLines.join('\n');
    assert.ok(logLines.length > 3);
    assert.ok(minted.length >= 5);
    for (const token of minted) {
      assert.ok(!everything.includes(token), 'no token');
      assert.ok(!everything.includes(token.split('.')[2] ?? ''), 'no signature');
    }
    for (const value of Object.values(userTokens)) assert.ok(!everything.includes(value));
  });
});
