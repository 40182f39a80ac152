import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ApprovalDecision, createInProcessApprovalBroker } from '../decision/approval-broker.ts';
import type { ConnectedApp } from '../decision/egress-catalogue.ts';
import type { EgressContext } from '../decision/egress-context.ts';
import { formatEgressLogLine } from '../decision/egress-logger.ts';
import { createConnectedAppResolver } from '../resolvers/create-connected-app-resolver.ts';
import { requestThroughProxy } from './__fixtures__/request-through-proxy.ts';
import { startTestUpstream, type TestUpstream } from './__fixtures__/start-test-upstream.ts';
import { type CertificateAuthority, loadOrCreateCertificateAuthority } from './certificate-authority.ts';
import { createLeafCertificateCache } from './leaf-certificate-cache.ts';
import { type EgressProxy, startEgressProxy } from './start-egress-proxy.ts';

const secret = 'sk-live-UPSTREAM-SECRET-424242';
const root = mkdtempSync(join(tmpdir(), 'toolbus-egress-proxy-'));
const logLines: string[] = [];
let proxyCa: CertificateAuthority;
let upstreamCa: CertificateAuthority;
let upstream: TestUpstream;
let untrusted: TestUpstream;
let plain: TestUpstream;
let decide: (request: { readonly target: string }) => Promise<ApprovalDecision> = async () => 'approved';

function app(port: number): ConnectedApp {
  return {
    id: 1,
    name: 'test-api',
    urlPatterns: [`https://api\\.test:${port}/.*`, `http://plain\\.test:\\d+/.*`],
    usable: true,
    actions: [
      { name: 'read', method: 'GET', pathPattern: '/.*', policy: 'ALWAYS' },
      { name: 'write', method: 'POST', pathPattern: '/items', policy: 'ASK' },
    ],
  };
}

function createContext(): EgressContext {
  return {
    identify: (connection) =>
      connection === 'run-1' || connection === '127.0.0.1'
        ? { sandboxId: 'sandbox-run-1', userId: 'user-1', sessionId: 'session-1' }
        : undefined,
    // The test names exist only here: a request can only succeed if the proxy dials the address it checked.
    resolveHost: async (name) => {
      if (['api.test', 'plain.test', 'untrusted.test'].includes(name)) return ['127.0.0.1'];
      throw new Error('ENOTFOUND');
    },
    addressPolicy: { level: 'strict', allow: ['api.test', 'plain.test', 'untrusted.test'] },
    connectedApps: () => [app(upstream.port)],
    mcpServers: () => [],
    credentialResolvers: [
      createConnectedAppResolver({
        template: () => ({ Authorization: 'Bearer {{org.key}}' }),
        organizationValues: () => ({ key: secret }),
      }),
    ],
    approvalBroker: createInProcessApprovalBroker({
      ask: (request) => decide({ target: request.destination }),
    }),
    approvalTimeoutMs: 5_000,
    logger: (event, fields) => logLines.push(formatEgressLogLine(event, fields)),
  };
}

let proxy: EgressProxy;
let port: number;

before(async () => {
  proxyCa = await loadOrCreateCertificateAuthority({ directory: join(root, 'proxy-ca') });
  upstreamCa = await loadOrCreateCertificateAuthority({ directory: join(root, 'upstream-ca') });
  const strangerCa = await loadOrCreateCertificateAuthority({ directory: join(root, 'stranger-ca') });
  upstream = await startTestUpstream(createLeafCertificateCache(upstreamCa));
  untrusted = await startTestUpstream(createLeafCertificateCache(strangerCa));
  plain = await startTestUpstream();
  proxy = startEgressProxy({
    context: createContext(),
    authority: proxyCa,
    upstreamTrustedCa: [upstreamCa.certificatePem],
  });
  port = (await proxy.listen({ port: 0, host: '127.0.0.1', connection: 'run-1' })).port ?? 0;
});

after(async () => {
  await proxy.drain();
  await Promise.all([upstream.close(), untrusted.close(), plain.close()]);
  rmSync(root, { recursive: true, force: true });
  const everything = logLines.join('\n');
  assert.ok(logLines.length > 5);
  assert.ok(!everything.includes(secret), 'the injected secret never reaches a log line');
  assert.ok(!everything.includes('sandbox-own-token'));
  assert.ok(!everything.includes('QUERYTOKEN'));
});

describe('startEgressProxy over loopback sockets', () => {
  it('intercepts HTTPS, injects the credential (one copy) and verifies the upstream against its own CA', async () => {
    const response = await requestThroughProxy({
      proxy: { port },
      url: `https://api.test:${upstream.port}/repos?q=QUERYTOKEN`,
      headers: { Authorization: 'Bearer sandbox-own-token', 'X-Toolbus-Mcp-Session': 'session-1' },
      ca: proxyCa.certificatePem,
      proxyAuthorization: `Basic ${Buffer.from('session-1:x').toString('base64')}`,
    });
    assert.equal(response.status, 200);
    assert.deepEqual(JSON.parse(response.body), { ok: true, path: '/repos?q=QUERYTOKEN' });
    const seen = upstream.seen.at(-1);
    assert.equal(seen?.headers.authorization, `Bearer ${secret}`);
    const authorizations = (seen?.rawHeaders ?? []).filter(
      (_value, index, all) => index % 2 === 0 && all[index]?.toLowerCase() === 'authorization',
    );
    assert.equal(authorizations.length, 1);
    assert.equal(seen?.headers['proxy-authorization'], undefined);
    assert.equal(seen?.headers['x-toolbus-mcp-session'], undefined);
    assert.equal(seen?.headers.host, `api.test:${upstream.port}`);
  });

  it('forwards absolute-form plain HTTP with the credential', async () => {
    const response = await requestThroughProxy({
      proxy: { port },
      url: `http://plain.test:${plain.port}/status`,
      ca: proxyCa.certificatePem,
    });
    assert.equal(response.status, 200);
    assert.equal(plain.seen.at(-1)?.headers.authorization, `Bearer ${secret}`);
  });

  it("refuses the proxy's own host, the metadata address and unknown names at CONNECT", async () => {
    for (const url of [`https://127.0.0.1:${port}/`, 'https://169.254.169.254/', 'https://nowhere.test/']) {
      const response = await requestThroughProxy({ proxy: { port }, url, ca: proxyCa.certificatePem });
      assert.equal(response.status, 403, url);
      assert.equal(JSON.parse(response.body).error, 'destination_blocked');
    }
    const plainBlocked = await requestThroughProxy({
      proxy: { port },
      url: `http://127.0.0.1:${port}/`,
      ca: proxyCa.certificatePem,
    });
    assert.equal(plainBlocked.status, 403);
    assert.equal(JSON.parse(plainBlocked.body).error, 'destination_blocked');
  });

  it('answers 502 when the upstream certificate is not trusted', async () => {
    const response = await requestThroughProxy({
      proxy: { port },
      url: `https://untrusted.test:${untrusted.port}/`,
      ca: proxyCa.certificatePem,
    });
    assert.equal(response.status, 502);
    assert.equal(JSON.parse(response.body).error, 'upstream_certificate_invalid');
    assert.equal(untrusted.seen.length, 0);
  });

  it('refuses a connection on a listener whose run is unknown', async () => {
    const stranger = await proxy.listen({ port: 0, host: '127.0.0.1', connection: 'run-unknown' });
    const response = await requestThroughProxy({
      proxy: { port: stranger.port ?? 0 },
      url: `https://api.test:${upstream.port}/`,
      ca: proxyCa.certificatePem,
    });
    assert.equal(response.status, 403);
    assert.equal(JSON.parse(response.body).error, 'unidentified_sandbox');
    await stranger.close();
  });

  it('waits for approval of an ASK action, and returns 403 user_rejected with prose when rejected', async () => {
    decide = () => new Promise((resolve) => setTimeout(() => resolve('approved'), 30));
    const approved = await requestThroughProxy({
      proxy: { port },
      url: `https://api.test:${upstream.port}/items`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"x"}',
      ca: proxyCa.certificatePem,
    });
    assert.equal(approved.status, 200);
    assert.equal(upstream.seen.at(-1)?.bodyLength, 12);
    decide = async () => 'rejected';
    const rejected = await requestThroughProxy({
      proxy: { port },
      url: `https://api.test:${upstream.port}/items`,
      method: 'POST',
      body: '{}',
      ca: proxyCa.certificatePem,
    });
    assert.equal(rejected.status, 403);
    const body = JSON.parse(rejected.body);
    assert.equal(body.error, 'user_rejected');
    assert.match(body.message, /Do not retry/);
  });

  it('refuses a body over 32 MiB by its declared length', async () => {
    const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `http://plain.test:${plain.port}/upload`,
        headers: { host: `plain.test:${plain.port}`, 'content-length': String(32 * 1024 * 1024 + 1) },
      });
      request.on('response', (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      request.on('error', reject);
      request.write('partial');
    });
    assert.equal(response.status, 403);
    assert.equal(JSON.parse(response.body).error, 'body_too_large');
  });
});

describe('health and drain', () => {
  it('reports health, and a drain expires parked approvals and finishes', async () => {
    let synced = false;
    const drained = startEgressProxy({
      context: createContext(),
      authority: proxyCa,
      upstreamTrustedCa: [upstreamCa.certificatePem],
      isIdentitySynced: () => synced,
      drainTimeoutMs: 2_000,
    });
    const healthPort = await drained.listenHealth({ port: 0 });
    const health = async () => (await fetch(`http://127.0.0.1:${healthPort}/healthz`)).status;
    assert.equal(await health(), 503);
    const listener = await drained.listen({ port: 0, connection: 'run-1' });
    const early = await requestThroughProxy({
      proxy: { port: listener.port ?? 0 },
      url: `https://api.test:${upstream.port}/`,
      ca: proxyCa.certificatePem,
    });
    assert.equal(early.status, 503, 'no traffic before the identity source synced');
    synced = true;
    assert.equal(await health(), 200);
    let parkedAsked = false;
    decide = () => {
      parkedAsked = true;
      return new Promise(() => {});
    };
    const parked = requestThroughProxy({
      proxy: { port: listener.port ?? 0 },
      url: `https://api.test:${upstream.port}/items`,
      method: 'POST',
      body: '{}',
      ca: proxyCa.certificatePem,
    });
    while (!parkedAsked) await new Promise((resolve) => setTimeout(resolve, 10));
    await drained.drain();
    const response = await parked;
    assert.equal(response.status, 403);
    assert.equal(JSON.parse(response.body).error, 'not_authorized');
    assert.equal(drained.ready(), false);
  });
});
