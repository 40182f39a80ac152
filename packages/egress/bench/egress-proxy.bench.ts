// What the egress proxy costs: HTTPS requests from a client through the proxy (CONNECT, TLS interception, the
// decision, credential injection, a verified upstream TLS connection) against the same requests made directly,
// and against mitmproxy (Debian's package) doing plain forwarding on the same loopback setup, in one run. The
// upstream and each proxy run in their own processes, so none shares the client's event loop.
// `npm run bench -- egress-proxy`
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { createConnectedAppResolver } from '../src/index.ts';
import { loadOrCreateCertificateAuthority } from '../src/node/certificate-authority.ts';
import { startEgressProxy } from '../src/node/start-egress-proxy.ts';

const self = new URL(import.meta.url).pathname;

if (process.argv[2] === 'serve-proxy') {
  // Child mode: our proxy, with one connected app that injects a header on every request.
  const [, , , caDirectory, upstreamCaPath] = process.argv;
  const authority = await loadOrCreateCertificateAuthority({ directory: caDirectory ?? '' });
  const proxy = startEgressProxy({
    authority,
    upstreamTrustedCa: [readFileSync(upstreamCaPath ?? '', 'utf8')],
    context: {
      identify: () => ({ sandboxId: 'bench', userId: 'bench-user', sessionId: 'bench' }),
      resolveHost: async () => ['127.0.0.1'],
      addressPolicy: { level: 'strict', allow: ['127.0.0.1/32'] },
      connectedApps: () => [
        {
          id: 1,
          name: 'bench',
          urlPatterns: ['https://127\\.0\\.0\\.1:\\d+/.*'],
          usable: true,
          actions: [{ name: 'all', pathPattern: '/.*', policy: 'ALWAYS' }],
        },
      ],
      mcpServers: () => [],
      credentialResolvers: [
        createConnectedAppResolver({
          template: () => ({ Authorization: 'Bearer {{org.key}}' }),
          organizationValues: () => ({ key: 'bench-secret' }),
        }),
      ],
    },
  });
  const listener = await proxy.listen({ port: 0, host: '127.0.0.1', connection: 'bench' });
  process.stdout.write(`${listener.port}\n`);
  await new Promise(() => {});
}

const work = mkdtempSync(join(tmpdir(), 'toolbus-egress-bench-'));
const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

// The upstream: an HTTPS server with a certificate for 127.0.0.1 from its own CA.
const upstreamCa = await loadOrCreateCertificateAuthority({ directory: join(work, 'upstream-ca') });
const upstreamCaPath = join(work, 'upstream-ca.pem');
writeFileSync(upstreamCaPath, upstreamCa.certificatePem);
const leafPem = await mintUpstreamLeaf();

async function mintUpstreamLeaf(): Promise<{ key: string; cert: string }> {
  const { loadX509, certificateKeyAlgorithm } = await import('../src/node/load-x509.ts');
  const x509 = await loadX509();
  const { webcrypto } = await import('node:crypto');
  const keys = await webcrypto.subtle.generateKey(certificateKeyAlgorithm, true, ['sign', 'verify']);
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: '0102',
    subject: 'CN=127.0.0.1',
    issuer: new x509.X509Certificate(upstreamCa.certificatePem).subjectName,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 86_400_000),
    publicKey: keys.publicKey as unknown as CryptoKey,
    signingKey: upstreamCa.privateKey as unknown as CryptoKey,
    signingAlgorithm: certificateKeyAlgorithm,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }])],
  });
  const der = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  const key = `-----BEGIN PRIVATE KEY-----\n${Buffer.from(der)
    .toString('base64')
    .replace(/.{1,64}/g, '$&\n')}-----END PRIVATE KEY-----\n`;
  return { key, cert: certificate.toString('pem') };
}

writeFileSync(join(work, 'upstream-key.pem'), leafPem.key);
writeFileSync(join(work, 'upstream-cert.pem'), leafPem.cert);
const upstreamSource = `
const https = require('node:https');
const fs = require('node:fs');
const body = JSON.stringify({ ok: true, padding: 'x'.repeat(200) });
const server = https.createServer({ key: fs.readFileSync(${JSON.stringify(join(work, 'upstream-key.pem'))}), cert: fs.readFileSync(${JSON.stringify(join(work, 'upstream-cert.pem'))}) }, (request, response) => {
  request.resume();
  request.on('end', () => { response.writeHead(200, { 'content-type': 'application/json' }); response.end(body); });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

async function startChild(command: string, args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  return { child, port: Number(line.toString().trim()) };
}

const upstream = await startChild(process.execPath, ['-e', upstreamSource]);
const ours = await startChild(process.execPath, [
  '--conditions=development',
  self,
  'serve-proxy',
  join(work, 'proxy-ca'),
  upstreamCaPath,
]);
const ourCa = readFileSync(join(work, 'proxy-ca', 'ca.crt'), 'utf8');

async function waitForPort(port: number, timeoutMs: number): Promise<boolean> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket: Socket = netConnect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

// mitmproxy doing plain forwarding (regular mode, TLS intercepted with its own CA, upstream verified against the
// same test CA): the reference for what TLS interception costs in a widely used proxy.
let mitm: { port: number; ca: string } | undefined;
const mitmdump = spawnSync('sh', ['-c', 'command -v mitmdump'], { encoding: 'utf8' }).stdout.trim();
if (mitmdump !== '') {
  const mitmPort = 20_000 + Math.floor(Math.random() * 20_000);
  const confdir = join(work, 'mitm');
  const child = spawn(
    mitmdump,
    [
      '--listen-host',
      '127.0.0.1',
      '--listen-port',
      String(mitmPort),
      '--set',
      `confdir=${confdir}`,
      '--set',
      `ssl_verify_upstream_trusted_ca=${upstreamCaPath}`,
      '-q',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  children.push(child);
  if (await waitForPort(mitmPort, 20_000)) {
    mitm = { port: mitmPort, ca: readFileSync(join(confdir, 'mitmproxy-ca-cert.pem'), 'utf8') };
  }
}

/** An HTTPS agent that reaches its origin through a CONNECT proxy, trusting only the proxy's CA. */
class TunnelAgent extends HttpsAgent {
  readonly #proxyPort: number;
  readonly #ca: string;
  constructor(proxyPort: number, ca: string, keepAlive: boolean) {
    super({ keepAlive, maxSockets: 64 });
    this.#proxyPort = proxyPort;
    this.#ca = ca;
  }
  override createConnection(
    options: import('node:http').RequestOptions,
    callback?: (error: Error | null, stream: import('node:stream').Duplex) => void,
  ): undefined {
    const connect = httpRequest({
      host: '127.0.0.1',
      port: this.#proxyPort,
      method: 'CONNECT',
      path: `${options.host}:${options.port}`,
      agent: false,
    });
    connect.on('connect', (response, socket: Socket) => {
      if (response.statusCode !== 200) {
        callback?.(new Error(`CONNECT ${response.statusCode}`), socket);
        return;
      }
      const secure = tlsConnect({
        socket,
        host: options.host ?? '',
        ca: this.#ca,
        ALPNProtocols: ['http/1.1'],
      });
      secure.once('secureConnect', () => callback?.(null, secure));
      secure.once('error', (error) => callback?.(error, secure));
    });
    connect.on('error', (error) => callback?.(error, undefined as never));
    connect.end();
    return undefined;
  }
}

type Client = { name: string; agent: (keepAlive: boolean) => HttpsAgent };
const clients: Client[] = [
  {
    name: 'direct (baseline)',
    agent: (keepAlive) => new HttpsAgent({ keepAlive, maxSockets: 64, ca: upstreamCa.certificatePem }),
  },
  {
    name: 'toolbus egress proxy (injecting)',
    agent: (keepAlive) => new TunnelAgent(ours.port, ourCa, keepAlive),
  },
  ...(mitm === undefined
    ? []
    : [
        {
          name: 'mitmproxy (plain forwarding)',
          agent: (keepAlive: boolean) => new TunnelAgent(mitm?.port ?? 0, mitm?.ca ?? '', keepAlive),
        },
      ]),
];

function get(agent: HttpsAgent): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      { host: '127.0.0.1', port: upstream.port, path: '/items?q=1', agent },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 200 ? resolve() : reject(new Error(`status ${response.statusCode}`)),
        );
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/** Runs `concurrency` sequential loops for `milliseconds`; returns requests/s and the median latency in ms. */
async function measure(
  agent: HttpsAgent,
  milliseconds: number,
  concurrency: number,
): Promise<{ rate: number; p50: number }> {
  const latencies: number[] = [];
  const deadline = performance.now() + milliseconds;
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        await get(agent);
        latencies.push(performance.now() - started);
      }
    }),
  );
  latencies.sort((left, right) => left - right);
  return {
    rate: latencies.length / ((performance.now() - begin) / 1000),
    p50: latencies[Math.floor(latencies.length / 2)] ?? 0,
  };
}

const median = (values: number[]) =>
  [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)] ?? 0;

console.log(
  '## Egress proxy: HTTPS through the proxy vs direct, and vs mitmproxy (loopback, separate processes)\n',
);
if (mitm === undefined)
  console.log('> mitmproxy (mitmdump) is not installed here, so its column is missing.\n');
console.log('| scenario | client | requests/s | ratio | median latency ms | added ms |');
console.log('|---|---|---:|---:|---:|---:|');
for (const scenario of [
  { label: 'kept-alive tunnel, 1 in flight', keepAlive: true, concurrency: 1, milliseconds: 1200 },
  { label: 'new connection per request, 1 in flight', keepAlive: false, concurrency: 1, milliseconds: 1200 },
  { label: 'kept-alive tunnels, 16 in flight', keepAlive: true, concurrency: 16, milliseconds: 1500 },
]) {
  const agents = new Map(clients.map((client) => [client.name, client.agent(scenario.keepAlive)]));
  for (const agent of agents.values()) await measure(agent, 300, scenario.concurrency);
  const rates = new Map<string, number[]>();
  const latencies = new Map<string, number[]>();
  // Interleaved rounds, so every client sees the same machine state; medians are reported.
  for (let round = 0; round < 3; round += 1) {
    for (const [name, agent] of agents) {
      const result = await measure(agent, scenario.milliseconds, scenario.concurrency);
      rates.set(name, [...(rates.get(name) ?? []), result.rate]);
      latencies.set(name, [...(latencies.get(name) ?? []), result.p50]);
    }
  }
  const baseRate = median(rates.get('direct (baseline)') ?? [1]);
  const baseLatency = median(latencies.get('direct (baseline)') ?? [0]);
  for (const name of agents.keys()) {
    const rate = median(rates.get(name) ?? [0]);
    const latency = median(latencies.get(name) ?? [0]);
    console.log(
      `| ${scenario.label} | ${name} | ${rate.toFixed(0)} | ${(rate / baseRate).toFixed(2)} | ${latency.toFixed(2)} | ${(latency - baseLatency).toFixed(2)} |`,
    );
  }
  for (const agent of agents.values()) agent.destroy();
}
console.log('');
process.exit(0);
