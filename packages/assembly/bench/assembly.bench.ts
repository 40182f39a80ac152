// Assembly time through `constructTools` (storage read included): a persona whose only row is GitHub's full REST
// API (@octokit/openapi, every operation a tool), cold (no cache: parse, validate, dereference, build) against a
// warm cache (parsed document reused by content hash); and a persona with tools from ten MCP servers (real SDK
// servers over Streamable HTTP on loopback, in this process), first fetch (connect + initialize + tools/list per
// server) against cached connections and tool lists. `npm run bench -- assembly`
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Tool as McpWireTool } from '@modelcontextprotocol/sdk/types.js';
import { echoLoopbackTool, type LoopbackMcpServer, startLoopbackMcpServer } from '@toolbus/mcp/testing';
import { omitUndefined } from '@toolbus/spec';
import { openStorage } from '@toolbus/storage';
import { constructTools, createToolAssemblyCache, type ToolAssembly } from '../src/index.ts';

const require = createRequire(import.meta.url);
const githubDocument = JSON.parse(
  readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8'),
) as Record<string, unknown>;

async function measure(
  runs: number,
  body: () => Promise<ToolAssembly>,
): Promise<{ milliseconds: number; tools: number }> {
  const samples: number[] = [];
  let tools = 0;
  for (let run = 0; run < runs; run += 1) {
    globalThis.gc?.();
    const started = performance.now();
    const assembly = await body();
    samples.push(performance.now() - started);
    tools = assembly.tools.length;
    await assembly.close();
  }
  samples.sort((left, right) => left - right);
  return { milliseconds: samples[Math.floor(samples.length / 2)] as number, tools };
}

const storage = await openStorage({ path: ':memory:', environment: {} });
const noBuiltIns = new Map();

// GitHub's API as one OpenAPI row.
const github = await storage.personas.create({ name: 'GitHub' });
await storage.personas.addToolRow(github.id, { kind: 'openapi', name: 'GitHub', document: githubDocument });
const githubCache = createToolAssemblyCache();
const assembleGithub = (cache?: typeof githubCache) =>
  constructTools({
    persona: github,
    storage,
    builtInFactories: noBuiltIns,
    fetch,
    ...omitUndefined({ cache }),
  });
// The cold run fills the cache (one cold parse only: each takes tens of seconds on a shared machine).
const githubCold = await measure(1, () => assembleGithub(githubCache));
const githubCached = await measure(3, () => assembleGithub(githubCache));
const githubTools = (await assembleGithub(githubCache)).tools;
const validNames = githubTools.every((tool) => /^[a-zA-Z0-9_-]{1,64}$/.test(tool.name));
const uniqueNames = new Set(githubTools.map((tool) => tool.name.toLowerCase())).size === githubTools.length;

// Ten MCP servers, 20 tools each; the persona uses 3 tools of each (30 rows), all approved.
const servers: LoopbackMcpServer[] = [];
const mcpPersona = await storage.personas.create({ name: 'Ten servers' });
for (let index = 0; index < 10; index += 1) {
  const tools: McpWireTool[] = Array.from({ length: 20 }, (_, number) => ({
    name: `tool_${index}_${number}`,
    description: `Tool ${number} of server ${index}.`,
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  }));
  const server = await startLoopbackMcpServer(tools.map(echoLoopbackTool));
  servers.push(server);
  const stored = await storage.mcpServers.create({
    name: `server-${index}`,
    endpoint: { transport: 'streamable-http', url: server.url },
    authType: 'none',
  });
  for (const number of [0, 1, 2]) {
    await storage.personas.addToolRow(mcpPersona.id, {
      kind: 'mcp',
      serverId: stored.id,
      toolName: `tool_${index}_${number}`,
    });
  }
}
const mcpCache = createToolAssemblyCache();
const assembleMcp = (options: { cache?: typeof mcpCache; requireMcpApproval?: boolean } = {}) =>
  constructTools({ persona: mcpPersona, storage, builtInFactories: noBuiltIns, fetch, ...options });
// Approve every tool with the hash the client computes (what an admin route records).
{
  const lenient = await assembleMcp({ requireMcpApproval: false });
  for (const [, tools] of lenient.toolsByRowId) {
    for (const tool of tools) {
      const mcp = tool as unknown as { serverId: string; mcpToolName: string; definitionHash: string };
      await storage.mcpServers.approveTool({
        serverId: mcp.serverId,
        toolName: mcp.mcpToolName,
        definitionHash: mcp.definitionHash,
        approvedBy: 'bench',
      });
    }
  }
  await lenient.close();
}
const mcpFirst = await measure(5, () => assembleMcp());
await assembleMcp({ cache: mcpCache });
const mcpCached = await measure(20, () => assembleMcp({ cache: mcpCache }));

console.log('## Tool assembly (`constructTools`)\n');
console.log('| persona | path | median ms | tools | vs cached |');
console.log('|---|---|---:|---:|---:|');
console.log(
  `| GitHub REST API (1 OpenAPI row) | cold: parse + validate + dereference + build | ${githubCold.milliseconds.toFixed(0)} | ${githubCold.tools} | ${(githubCold.milliseconds / githubCached.milliseconds).toFixed(1)}x |`,
);
console.log(
  `| GitHub REST API (1 OpenAPI row) | cached parsed document (by content hash) | ${githubCached.milliseconds.toFixed(0)} | ${githubCached.tools} | 1.0x |`,
);
console.log(
  `| 10 MCP servers × 3 tools | first fetch: connect + initialize + tools/list per server | ${mcpFirst.milliseconds.toFixed(1)} | ${mcpFirst.tools} | ${(mcpFirst.milliseconds / mcpCached.milliseconds).toFixed(1)}x |`,
);
console.log(
  `| 10 MCP servers × 3 tools | cached connections and tool lists | ${mcpCached.milliseconds.toFixed(1)} | ${mcpCached.tools} | 1.0x |`,
);
console.log(
  `\nGitHub: ${githubTools.length} tools, names all provider-valid: ${validNames}, all unique: ${uniqueNames}. Cached runs include reading the ${(JSON.stringify(githubDocument).length / 2 ** 20).toFixed(1)} MiB document row from SQLite and hashing it. MCP servers run in this process (SDK server, Streamable HTTP on 127.0.0.1), so first-fetch figures include their side too. Runs: GitHub cold 1, cached 3; MCP first 5, cached 20; medians.\n`,
);

await Promise.all([githubCache.close(), mcpCache.close()]);
await Promise.all(servers.map((server) => server.close()));
await storage.close();
