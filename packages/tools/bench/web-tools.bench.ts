// open_url throughput: pages per second through the whole tool (fetch, size/time limits, Readability to Markdown,
// citation numbering), with the SSRF-guarded fetch against undici's plain fetch, both reading the same loopback
// site (in a child process, so the server does not share the client's event loop). A second table separates the
// network part: the same pages fetched and read, without extraction. `npm run bench -- web-tools`

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { runToolCalls } from '@toolbus/core';
import { createGuardedFetch } from '@toolbus/core/node';
import type { FetchFunction } from '@toolbus/spec';
import { Agent, fetch as undiciFetch } from 'undici';
import { createOpenUrlTool } from '../src/open-url/open-url-tool.ts';

// A realistic article: about 40 KB of HTML with navigation, scripts and 60 paragraphs.
const serverSource = `
const http = require('node:http');
const paragraph = '<p>' + 'Solar panels convert sunlight into electricity through the photovoltaic effect. '.repeat(8) + '</p>';
const page = (n) => '<!doctype html><html><head><title>Article ' + n + '</title><script>var x = 1;</script></head><body>' +
  '<nav>' + '<a href="/x">Link</a> '.repeat(40) + '</nav><article><h1>Article ' + n + '</h1>' + paragraph.repeat(60) +
  '</article><footer>Footer</footer></body></html>';
const server = http.createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  response.end(page(request.url));
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;
const child = spawn(process.execPath, ['-e', serverSource], { stdio: ['ignore', 'pipe', 'inherit'] });
const [portLine] = (await once(child.stdout, 'data')) as [Buffer];
const port = Number(portLine.toString().trim());

const plainAgent = new Agent();
const plain: FetchFunction = (input, init) =>
  undiciFetch(input as string, {
    ...(init as object),
    dispatcher: plainAgent,
  }) as unknown as Promise<Response>;
const guarded = createGuardedFetch({ allow: ['127.0.0.1/32'] });
const variants: ReadonlyArray<{ name: string; fetch: FetchFunction }> = [
  { name: 'plain undici fetch (baseline)', fetch: plain },
  { name: 'guarded fetch', fetch: guarded },
];

let callNumber = 0;
/** Runs open_url calls of 10 URLs each, 2 calls in flight, for `milliseconds`; returns pages per second. */
async function openUrlPagesPerSecond(fetch: FetchFunction, milliseconds: number): Promise<number> {
  const tool = createOpenUrlTool({ fetch });
  let pages = 0;
  const begin = process.hrtime.bigint();
  const deadline = begin + BigInt(milliseconds) * 1_000_000n;
  const worker = async () => {
    while (process.hrtime.bigint() < deadline) {
      callNumber += 1;
      const urls = Array.from(
        { length: 10 },
        (_unused, index) => `http://127.0.0.1:${port}/p/${callNumber}/${index}`,
      );
      const result = await runToolCalls({
        calls: [
          { id: `c${callNumber}`, name: 'open_url', arguments: { urls }, placement: { turn: 0, tab: 0 } },
        ],
        tools: [tool],
      });
      const text = result.outcomes[0]?.response.llmFacing ?? '';
      if (!text.startsWith('Opened 10 of 10')) throw new Error(`unexpected result: ${text.slice(0, 200)}`);
      pages += 10;
    }
  };
  await Promise.all([worker(), worker()]);
  return pages / (Number(process.hrtime.bigint() - begin) / 1e9);
}

/** The network part alone: GET and read the body, 20 in flight. */
async function fetchPagesPerSecond(fetch: FetchFunction, milliseconds: number): Promise<number> {
  let pages = 0;
  const begin = process.hrtime.bigint();
  const deadline = begin + BigInt(milliseconds) * 1_000_000n;
  const worker = async () => {
    while (process.hrtime.bigint() < deadline) {
      const response = await fetch(`http://127.0.0.1:${port}/f/${pages}`);
      await response.arrayBuffer();
      pages += 1;
    }
  };
  await Promise.all(Array.from({ length: 20 }, worker));
  return pages / (Number(process.hrtime.bigint() - begin) / 1e9);
}

const median = (values: number[]) =>
  [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)] as number;

async function table(
  title: string,
  measure: (fetch: FetchFunction, milliseconds: number) => Promise<number>,
  milliseconds: number,
) {
  for (const variant of variants) await measure(variant.fetch, 300);
  const rates = new Map<string, number[]>();
  // Interleaved rounds, so both clients see the same machine state; the median round is reported.
  for (let round = 0; round < 5; round += 1) {
    for (const variant of variants) {
      rates.set(variant.name, [
        ...(rates.get(variant.name) ?? []),
        await measure(variant.fetch, milliseconds),
      ]);
    }
  }
  const baseline = median(rates.get(variants[0]?.name ?? '') ?? [1]);
  console.log(`| ${title} | | | |`);
  for (const variant of variants) {
    const rate = median(rates.get(variant.name) ?? [0]);
    console.log(`| | ${variant.name} | ${rate.toFixed(0)} | ${(rate / baseline).toFixed(2)} |`);
  }
}

console.log('## open_url throughput: guarded fetch vs plain fetch (40 KB HTML pages, loopback site)\n');
console.log('| what | fetch | pages/s | ratio |');
console.log('|---|---|---:|---:|');
await table(
  'open_url (10 URLs per call, 2 calls in flight; fetch + Readability + Markdown)',
  openUrlPagesPerSecond,
  1500,
);
await table('fetch and read the body only (20 in flight)', fetchPagesPerSecond, 800);
console.log(
  '\nMedian of 5 interleaved rounds. The first table includes extraction (Readability over linkedom); the second isolates the network part, where the guard resolves and checks each new connection.',
);

await guarded.close();
await plainAgent.close();
child.kill();
