// The sandbox's only way out: Python in the real bubblewrap sandbox calls a loopback HTTPS API through the egress
// proxy (a Unix socket per run, relayed inside the sandbox's own network namespace), the API receives the injected
// credential, and the sandbox holds no secret and reaches nothing else.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createConnectedAppResolver, type EgressContext, formatEgressLogLine } from '@toolbus/egress';
import {
  createLeafCertificateCache,
  createRunIdentityRegistry,
  createRunSocketEgress,
  type EgressProxy,
  loadOrCreateCertificateAuthority,
  type RunSocketEgress,
  startEgressProxy,
} from '@toolbus/egress/node';
import { type InterpreterServer, startInterpreterServer } from '@toolbus/interpreter';

const secret = 'sk-live-E2E-SANDBOX-NEVER-SEES-THIS-9173';
const root = mkdtempSync(join(tmpdir(), 'toolbus-egress-e2e-'));
const logLines: string[] = [];
const received: Array<Record<string, string | string[] | undefined>> = [];
let upstreamPort = 0;
let proxyTcpPort = 0;
let proxy: EgressProxy;
let egress: RunSocketEgress;
let interpreter: InterpreterServer;
const leases: string[] = [];
let upstream: ReturnType<typeof createHttpsServer>;
let plainUpstream: ReturnType<typeof createHttpServer>;

async function execute(code: string): Promise<{ stdout: string; stderr: string; exit_code: number | null }> {
  const response = await fetch(`${interpreter.url}/v1/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, timeout_ms: 30_000 }),
  });
  assert.equal(response.status, 200);
  return (await response.json()) as { stdout: string; stderr: string; exit_code: number | null };
}

before(async () => {
  const upstreamCa = await loadOrCreateCertificateAuthority({ directory: join(root, 'upstream-ca') });
  const leaves = createLeafCertificateCache(upstreamCa);
  upstream = createHttpsServer(
    {
      SNICallback: (name, callback) => {
        leaves.secureContextFor(name).then(
          (context) => callback(null, context),
          (error: Error) => callback(error),
        );
      },
    },
    (request, response) => {
      received.push(request.headers);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ authorized: request.headers.authorization === `Bearer ${secret}` }));
    },
  );
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamPort = (upstream.address() as AddressInfo).port;
  plainUpstream = createHttpServer((_request, response) => response.end('plain'));
  await new Promise<void>((resolve) => plainUpstream.listen(0, '127.0.0.1', resolve));

  const authority = await loadOrCreateCertificateAuthority({ directory: join(root, 'proxy-ca') });
  const registry = createRunIdentityRegistry();
  const context: EgressContext = {
    identify: registry.identify,
    resolveHost: async (name) => {
      if (name === 'api.test') return ['127.0.0.1'];
      throw new Error('ENOTFOUND');
    },
    // Only the test API's name may reach loopback; every other internal address stays blocked.
    addressPolicy: { level: 'strict', allow: ['api.test'] },
    connectedApps: () => [
      {
        id: 1,
        name: 'test-api',
        urlPatterns: [`https://api\\.test:${upstreamPort}/.*`],
        usable: true,
        actions: [{ name: 'any', pathPattern: '/.*', policy: 'ALWAYS' }],
      },
    ],
    mcpServers: () => [],
    credentialResolvers: [
      createConnectedAppResolver({
        template: () => ({ Authorization: 'Bearer {{org.key}}' }),
        organizationValues: () => ({ key: secret }),
      }),
    ],
    logger: (event, fields) => logLines.push(formatEgressLogLine(event, fields)),
  };
  proxy = startEgressProxy({ context, authority, upstreamTrustedCa: [upstreamCa.certificatePem] });
  // A TCP listener on the host as well, to prove the sandbox cannot reach the proxy's host directly.
  proxyTcpPort = (await proxy.listen({ port: 0, host: '127.0.0.1', connection: 'host-only' })).port ?? 0;
  egress = createRunSocketEgress({
    proxy,
    registry,
    caCertificatePem: authority.certificatePem,
    identityForRun: (runId) => ({ sandboxId: runId, userId: 'user-e2e', sessionId: 'session-e2e' }),
  });
  interpreter = await startInterpreterServer({
    egress: {
      open: async (run) => {
        const lease = await egress.open(run);
        leases.push(lease.socketPath);
        return lease;
      },
    },
  });
});

after(async () => {
  await interpreter?.close();
  await proxy?.drain();
  egress?.close();
  upstream?.close();
  plainUpstream?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('egress from the real sandbox', () => {
  it('reaches a connected HTTPS API through the proxy, which adds the credential the sandbox never sees', async () => {
    const result = await execute(
      [
        'import json, os, requests, urllib.request',
        `url = "https://api.test:${upstreamPort}/v1/items"`,
        'print(json.dumps(requests.get(url, timeout=10).json()))',
        'with urllib.request.urlopen(url, timeout=10) as r:',
        '    print(json.dumps(json.load(r)))',
        'print(json.dumps({k: os.environ.get(k) for k in ["HTTPS_PROXY", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"]}))',
        'found = []',
        // Written reversed, so this script itself does not hold the secret it searches for.
        `needle = ${JSON.stringify([...secret.slice(8)].reverse().join(''))}[::-1].encode()`,
        'for top in ["/sandbox", "/workspace", "/tmp", "/etc", "/proc/self"]:',
        '    for base, dirs, files in os.walk(top):',
        '        if base.startswith("/proc/self") and base.count("/") > 3: continue',
        '        for name in files:',
        '            try:',
        '                with open(os.path.join(base, name), "rb") as f:',
        '                    if needle in f.read(4 << 20): found.append(os.path.join(base, name))',
        '            except OSError: pass',
        'print(json.dumps({"found": found, "env": any(needle.decode() in v for v in os.environ.values())}))',
      ].join('\n'),
    );
    assert.equal(result.exit_code, 0, result.stderr);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(lines[0], { authorized: true });
    assert.deepEqual(lines[1], { authorized: true });
    assert.deepEqual(lines[2], {
      HTTPS_PROXY: 'http://127.0.0.1:3128',
      SSL_CERT_FILE: '/sandbox/egress-ca.pem',
      REQUESTS_CA_BUNDLE: '/sandbox/egress-ca.pem',
      CURL_CA_BUNDLE: '/sandbox/egress-ca.pem',
    });
    assert.deepEqual(lines[3], { found: [], env: false });
    assert.equal(received.length, 2);
    assert.ok(received.every((headers) => headers.authorization === `Bearer ${secret}`));
  });

  it('cannot reach the proxy host, the metadata address, another run, or anything directly', async () => {
    const otherRun = await egress.open({ runId: 'other-run' });
    try {
      const result = await execute(
        [
          'import json, os, socket, requests',
          'out = {}',
          'def direct(host, port):',
          '    try:',
          '        socket.create_connection((host, port), timeout=3).close()',
          '        return "connected"',
          '    except OSError as error:',
          '        return type(error).__name__',
          `out["direct_upstream"] = direct("127.0.0.1", ${upstreamPort})`,
          `out["direct_proxy_host"] = direct("127.0.0.1", ${proxyTcpPort})`,
          'out["direct_metadata"] = direct("169.254.169.254", 80)',
          'def proxied(url):',
          '    try:',
          '        r = requests.get(url, timeout=10)',
          '        return [r.status_code, r.json().get("error")]',
          '    except requests.exceptions.ProxyError as error:',
          '        return ["proxy_error", str(error)[:200]]',
          '    except Exception as error:',
          '        return [type(error).__name__]',
          `out["proxy_host"] = proxied("http://127.0.0.1:${proxyTcpPort}/")`,
          'out["metadata"] = proxied("http://169.254.169.254/latest/meta-data/")',
          'out["metadata_tls"] = proxied("https://169.254.169.254/")',
          `other = ${JSON.stringify(otherRun.socketPath)}`,
          'out["other_socket_visible"] = os.path.exists(other)',
          'try:',
          '    s = socket.socket(socket.AF_UNIX); s.connect(other); out["other_socket"] = "connected"',
          'except OSError as error:',
          '    out["other_socket"] = type(error).__name__',
          // Read from /proc: the sandbox's syscall filter refuses netlink sockets, which if_nameindex() needs.
          'out["interfaces"] = sorted(line.split(":")[0].strip() for line in open("/proc/net/dev").read().splitlines()[2:])',
          'print(json.dumps(out))',
        ].join('\n'),
      );
      assert.equal(result.exit_code, 0, result.stderr);
      const out = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}');
      assert.equal(out.direct_upstream, 'ConnectionRefusedError');
      assert.equal(out.direct_proxy_host, 'ConnectionRefusedError');
      assert.match(out.direct_metadata, /OSError|TimeoutError/);
      assert.deepEqual(out.proxy_host, [403, 'destination_blocked']);
      assert.deepEqual(out.metadata, [403, 'destination_blocked']);
      assert.equal(out.metadata_tls[0], 'proxy_error');
      assert.match(out.metadata_tls[1], /403/);
      assert.equal(out.other_socket_visible, false);
      assert.equal(out.other_socket, 'FileNotFoundError');
      assert.deepEqual(out.interfaces, ['lo']);
    } finally {
      await otherRun.close();
    }
  });

  it('gives each run a socket of its own and closes it when the run ends', () => {
    assert.ok(leases.length >= 3);
    assert.equal(new Set(leases).size, leases.length);
  });

  after(() => {
    const everything = logLines.join('\n');
    assert.ok(logLines.some((line) => line.startsWith('event=credential_injected')));
    assert.ok(!everything.includes(secret));
  });
});
