// MCP client costs against the real server-everything: tools/list on a first connection (spawn or HTTP handshake
// plus listing) vs the cached list, and one tool-call round trip over stdio vs Streamable HTTP on loopback.
// `npm run bench -- mcp`
import { createGuardedFetch } from '@toolbus/core/node';
import { everythingServerEntry, startEverythingHttpServer } from '../src/__fixtures__/everything-server.ts';
import { connectMcpServer, type McpConnection } from '../src/connect-mcp-server.ts';
import type { McpServerConfig } from '../src/mcp-server-config.ts';
import { startLoopbackMcpServer } from '../src/testing/loopback-mcp-server.ts';

const stdioConfig: McpServerConfig = {
  id: 'bench-stdio',
  name: 'everything',
  transport: { type: 'stdio', command: process.execPath, args: [everythingServerEntry, 'stdio'] },
};
const http = await startEverythingHttpServer('streamableHttp');
const httpConfig: McpServerConfig = {
  id: 'bench-http',
  name: 'everything',
  transport: { type: 'streamable-http', url: `${http.baseUrl}/mcp` },
};
const options = { fetch: (input: string | URL | Request, init?: RequestInit) => fetch(input, init) };

const median = (values: number[]) =>
  [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)] as number;
const now = () => Number(process.hrtime.bigint()) / 1e6;

/** Milliseconds for connect + first tools/list, median of `runs` fresh connections. */
async function coldList(config: McpServerConfig, runs: number): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const begin = now();
    const connection = await connectMcpServer(config, options);
    await connection.listTools();
    times.push(now() - begin);
    await connection.close();
  }
  return median(times);
}

/** Microseconds per cached listTools() call. */
async function cachedList(connection: McpConnection, calls: number): Promise<number> {
  await connection.listTools();
  const begin = now();
  for (let call = 0; call < calls; call += 1) await connection.listTools();
  return ((now() - begin) * 1000) / calls;
}

/** Milliseconds per echo call, median of batches. */
async function echoRoundTrip(connection: McpConnection, calls: number): Promise<number> {
  for (let warm = 0; warm < 20; warm += 1)
    await connection.callTool({ name: 'echo', arguments: { message: 'w' } });
  const times: number[] = [];
  for (let call = 0; call < calls; call += 1) {
    const begin = now();
    await connection.callTool({ name: 'echo', arguments: { message: `m${call}` } });
    times.push(now() - begin);
  }
  return median(times);
}

const stdio = await connectMcpServer(stdioConfig, options);
const streamable = await connectMcpServer(httpConfig, options);
const rows = {
  stdioCold: await coldList(stdioConfig, 5),
  httpCold: await coldList(httpConfig, 10),
  stdioCached: await cachedList(stdio, 10_000),
  httpCached: await cachedList(streamable, 10_000),
  stdioCall: await echoRoundTrip(stdio, 300),
  httpCall: await echoRoundTrip(streamable, 300),
};
// The same round trip against a bare SDK server in this process: separates the client's cost from the server's.
const bare = await startLoopbackMcpServer([
  {
    tool: { name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: {} } },
    call: (args) => ({ content: [{ type: 'text', text: String(args.message) }] }),
  },
]);
const bareConnection = await connectMcpServer(
  { id: 'bench-bare', name: 'bare', transport: { type: 'streamable-http', url: bare.url } },
  options,
);
const bareCall = await echoRoundTrip(bareConnection, 300);
await bareConnection.close();
// The same, through the SSRF guard (every connection resolved and checked; loopback allowed for the bench).
const guarded = createGuardedFetch({ allow: ['127.0.0.1/32'] });
const guardedConnection = await connectMcpServer(
  { id: 'bench-guarded', name: 'bare', transport: { type: 'streamable-http', url: bare.url } },
  { fetch: guarded },
);
const guardedCall = await echoRoundTrip(guardedConnection, 300);
await guardedConnection.close();
await guarded.close();
await bare.close();
await stdio.close();
await streamable.close();
await http.close();

console.log('## MCP client: tools/list and tool-call round trip (server-everything, loopback)\n');
console.log('| measure | stdio | Streamable HTTP | HTTP / stdio |');
console.log('|---|---:|---:|---:|');
console.log(
  `| first connection: connect + tools/list (ms, median) | ${rows.stdioCold.toFixed(1)} | ${rows.httpCold.toFixed(1)} | ${(rows.httpCold / rows.stdioCold).toFixed(2)} |`,
);
console.log(
  `| cached listTools() (µs per call) | ${rows.stdioCached.toFixed(2)} | ${rows.httpCached.toFixed(2)} | ${(rows.httpCached / rows.stdioCached).toFixed(2)} |`,
);
console.log(
  `| tools/call echo round trip (ms, median of 300) | ${rows.stdioCall.toFixed(3)} | ${rows.httpCall.toFixed(3)} | ${(rows.httpCall / rows.stdioCall).toFixed(2)} |`,
);
console.log(
  `| tools/call echo, bare SDK server in-process (ms, median of 300) | | ${bareCall.toFixed(3)} | |`,
);
console.log(
  `| same, through the guarded fetch (ms, median of 300; ratio to plain fetch) | | ${guardedCall.toFixed(3)} | ${(guardedCall / bareCall).toFixed(2)} |`,
);
console.log(
  `\nCached list vs first connection: ${(rows.stdioCold / (rows.stdioCached / 1000)).toFixed(0)}× faster over stdio, ${(rows.httpCold / (rows.httpCached / 1000)).toFixed(0)}× over Streamable HTTP. Plain fetch unless stated.\n`,
);
