// Cost of the SSRF guard: requests per second of the guarded fetch against undici's plain fetch, both talking to
// the same loopback server (in a child process, so the server does not share the client's event loop), over
// kept-alive connections and with a new connection per request (where the guard's resolve-and-check runs every
// time). Then the pure checks per second. `npm run bench -- guarded-fetch`
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { BlockList, isIP } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { checkAddress, compileAddressPolicy } from '../src/net/check-address.ts';
import { classifyAddress } from '../src/net/classify-address.ts';
import type { GuardedLookup } from '../src/net/guarded-connector.ts';
import { createGuardedFetch } from '../src/net/guarded-fetch.ts';
import { parseHostLiteral } from '../src/net/parse-host-literal.ts';

const serverSource = `
const http = require('node:http');
const body = JSON.stringify({ ok: true, padding: 'x'.repeat(200) });
const server = http.createServer((request, response) => {
  const close = request.url === '/close';
  response.writeHead(200, { 'content-type': 'application/json', ...(close ? { connection: 'close' } : {}) });
  response.end(body);
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;
const child = spawn(process.execPath, ['-e', serverSource], { stdio: ['ignore', 'pipe', 'inherit'] });
const [portLine] = (await once(child.stdout, 'data')) as [Buffer];
const port = Number(portLine.toString().trim());

type Fetch = (url: string) => Promise<{ arrayBuffer(): Promise<ArrayBuffer>; status: number }>;

/**
 * Keeps `concurrency` requests in flight for `milliseconds` (time-boxed, so a busy machine makes the run no
 * longer); returns requests per second and the client process's CPU time per request (user + system), which
 * stays meaningful when other work shares the machine.
 */
async function measure(
  fetchFunction: Fetch,
  options: { url: string; milliseconds: number; concurrency: number },
): Promise<{ rate: number; cpuMicroseconds: number }> {
  let completed = 0;
  const begin = process.hrtime.bigint();
  const deadline = begin + BigInt(options.milliseconds) * 1_000_000n;
  const worker = async () => {
    while (process.hrtime.bigint() < deadline) {
      const response = await fetchFunction(options.url);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      completed += 1;
    }
  };
  const cpuBefore = process.cpuUsage();
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const cpu = process.cpuUsage(cpuBefore);
  return {
    rate: completed / (Number(process.hrtime.bigint() - begin) / 1e9),
    cpuMicroseconds: (cpu.user + cpu.system) / completed,
  };
}

const median = (values: number[]) =>
  [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)] as number;

// A resolver answering from memory (as a local DNS cache would), so the figures measure the guard, not DNS.
const memoryLookup: GuardedLookup = (_hostname, _options, callback) => {
  queueMicrotask(() => callback(null, [{ address: '127.0.0.1', family: 4 }]));
};

const plainAgent = new Agent();
const plain: Fetch = (url) => undiciFetch(url, { dispatcher: plainAgent });
const guardedLiteral = createGuardedFetch({ allow: ['127.0.0.1/32'] });
const guardedName = createGuardedFetch({ allow: ['bench.test'], lookup: memoryLookup });

const variants: ReadonlyArray<{ name: string; fetch: Fetch; host: string }> = [
  { name: 'undici fetch (baseline)', fetch: plain, host: '127.0.0.1' },
  { name: 'guarded fetch, IP literal', fetch: guardedLiteral, host: '127.0.0.1' },
  { name: 'guarded fetch, name + lookup', fetch: guardedName, host: 'bench.test' },
];

console.log('## Guarded fetch vs undici fetch (loopback server in a child process)\n');
console.log('| connections | client | requests/s | ratio | client CPU µs/request | ratio |');
console.log('|---|---|---:|---:|---:|---:|');
for (const scenario of [
  { label: 'kept alive, 16 in flight', path: '/', milliseconds: 800, concurrency: 16 },
  { label: 'new per request, 8 in flight', path: '/close', milliseconds: 800, concurrency: 8 },
]) {
  const rates = new Map<string, number[]>();
  const cpu = new Map<string, number[]>();
  for (const variant of variants) {
    await measure(variant.fetch, {
      url: `http://${variant.host}:${port}${scenario.path}`,
      milliseconds: 300,
      concurrency: scenario.concurrency,
    });
  }
  // Interleaved rounds, so every client sees the same machine state; the median round is reported.
  for (let round = 0; round < 3; round += 1) {
    for (const variant of variants) {
      const result = await measure(variant.fetch, {
        url: `http://${variant.host}:${port}${scenario.path}`,
        ...scenario,
      });
      rates.set(variant.name, [...(rates.get(variant.name) ?? []), result.rate]);
      cpu.set(variant.name, [...(cpu.get(variant.name) ?? []), result.cpuMicroseconds]);
    }
  }
  const baselineRate = median(rates.get('undici fetch (baseline)') ?? [1]);
  const baselineCpu = median(cpu.get('undici fetch (baseline)') ?? [1]);
  for (const variant of variants) {
    const rate = median(rates.get(variant.name) ?? [0]);
    const cpuMicroseconds = median(cpu.get(variant.name) ?? [0]);
    console.log(
      `| ${scenario.label} | ${variant.name} | ${rate.toFixed(0)} | ${(rate / baselineRate).toFixed(2)} | ${cpuMicroseconds.toFixed(0)} | ${(cpuMicroseconds / baselineCpu).toFixed(2)} |`,
    );
  }
}

/** Calls `body` over the inputs for about `milliseconds`; returns calls per second. */
function opsPerSecond(
  inputs: readonly string[],
  body: (input: string) => unknown,
  milliseconds = 400,
): number {
  let calls = 0;
  let sink = 0;
  const begin = process.hrtime.bigint();
  const budget = BigInt(milliseconds) * 1_000_000n;
  while (process.hrtime.bigint() - begin < budget) {
    for (const input of inputs) {
      if (body(input)) sink += 1;
      calls += 1;
    }
  }
  if (sink < 0) console.log(sink);
  return calls / (Number(process.hrtime.bigint() - begin) / 1e9);
}

const addresses = [
  '93.184.216.34',
  '10.0.0.1',
  '169.254.169.254',
  '2606:4700:4700::1111',
  '::ffff:7f00:1',
  '64:ff9b::a9fe:a9fe',
  'fd12::1',
  '0x7f.1',
];
const policy = compileAddressPolicy({ level: 'strict', allow: ['10.20.0.0/16', 'mcp.corp.example'] });
const uncompiled = { level: 'permissive', allow: ['10.20.0.0/16'] } as const;

// Baselines in the same run: Node's own validation and a BlockList holding the same non-public ranges.
const blockList = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const) {
  blockList.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 127],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blockList.addSubnet(network, prefix, 'ipv6');
}
const canonical = addresses.map((address) => (address === '0x7f.1' ? '127.0.0.1' : address));

console.log('\n## Address checks (mixed IPv4, IPv6, mapped, NAT64 and numeric-literal inputs)\n');
console.log('| function | calls/s | µs per call | time vs net.BlockList.check |');
console.log('|---|---:|---:|---:|');
const micro: ReadonlyArray<readonly [string, readonly string[], (address: string) => unknown]> = [
  ['net.isIP (baseline: validation only)', canonical, (address) => isIP(address)],
  [
    'net.BlockList.check (baseline: ranges only)',
    canonical,
    (address) => blockList.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4'),
  ],
  ['parseHostLiteral', addresses, (address) => parseHostLiteral(address).type],
  ['classifyAddress', addresses, (address) => classifyAddress(address).category],
  [
    'checkAddress (compiled policy, allow list of 2)',
    addresses,
    (address) => checkAddress(address, policy).allowed,
  ],
  [
    'checkAddress (plain policy object, cached)',
    addresses,
    (address) => checkAddress(address, uncompiled).allowed,
  ],
];
for (const [, inputs, body] of micro) opsPerSecond(inputs, body, 100);
const microRates = micro.map(([name, inputs, body]) => [name, opsPerSecond(inputs, body)] as const);
const blockListRate = microRates[1]?.[1] ?? 1;
for (const [name, rate] of microRates) {
  console.log(
    `| ${name} | ${rate.toFixed(0)} | ${(1e6 / rate).toFixed(2)} | ${(blockListRate / rate).toFixed(2)} |`,
  );
}
console.log(
  '\nThe guarded fetch normalises the request, follows redirects itself and rewraps the response as a global `Response`; with a new connection per request it also resolves and checks the host before every dial.\n',
);

await Promise.all([plainAgent.close(), guardedLiteral.close(), guardedName.close()]);
child.kill();
