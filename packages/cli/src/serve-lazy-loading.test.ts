// `toolbus serve` holds only what serving needs until something uses more: its memory at rest is what it loaded.
// Proven on the real command in a child process whose every module load is recorded (a --import hook): at start
// no other command's module, no MCP SDK, no `ai` package and no undici; the MCP server SDK once the MCP endpoint
// is called; the MCP client SDK once an MCP server is connected to.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startEverythingHttpServer } from '../../mcp/src/__fixtures__/everything-server.ts';
import { killStartedClis, type RunningCli, spawnCli, startCli } from './__fixtures__/spawn-cli.ts';

const hook = new URL('./__fixtures__/record-module-loads.mjs', import.meta.url).pathname;

let home: string;
let log: string;
let cli: RunningCli;
let url: string;
let mcp: { baseUrl: string; close(): Promise<void> };

/** The URLs of the modules the serve process itself has loaded so far. */
async function loaded(): Promise<string[]> {
  const pid = String(cli.child.pid);
  return (await readFile(log, 'utf8'))
    .split('\n')
    .filter((line) => line.startsWith(`${pid} `))
    .map((line) => line.slice(pid.length + 1));
}

const matching = (urls: readonly string[], pattern: RegExp) =>
  urls.filter((candidate) => pattern.test(candidate));

const mcpClientSdk = /\/node_modules\/@modelcontextprotocol\/(client|sdk\/dist\/esm\/client)\//;
const mcpServerSdk = /\/node_modules\/@modelcontextprotocol\/(server|sdk\/dist\/esm\/server)\//;

before(async () => {
  home = await mkdtemp(join(tmpdir(), 'toolbus-serve-lazy-'));
  log = join(home, 'modules.log');
  await writeFile(log, '');
  mcp = await startEverythingHttpServer();
  // The MCP check below connects to the fixture on loopback: the name localhost is allowed for it.
  const allowed = await spawnCli(['config', 'set', 'allowHosts', 'localhost'], { TOOLBUS_HOME: home });
  assert.equal(allowed.code, 0, allowed.stderr);
  cli = startCli(['serve', '--port', '0'], {
    TOOLBUS_HOME: home,
    NODE_OPTIONS: `--import=${hook}`,
    TOOLBUS_TEST_MODULE_LOG: log,
  });
  url = await cli.waitForMatch(/serving on (http:\/\/\S+)/);
});

after(async () => {
  cli?.child.kill('SIGTERM');
  await cli?.exited;
  killStartedClis();
  await mcp?.close();
  await rm(home, { recursive: true, force: true });
});

describe('toolbus serve loads what it uses, when it uses it', { timeout: 120_000 }, () => {
  test('at start: the serve command alone, and none of the MCP SDKs, ai or undici', async () => {
    const urls = await loaded();
    assert.ok(
      urls.some((candidate) => candidate.endsWith('/commands/serve-command.ts')),
      'the hook saw the serve command load',
    );
    const otherCommands = matching(urls, /\/commands\/[a-z-]+-command\.ts$/).filter(
      (candidate) => !candidate.endsWith('/serve-command.ts') && !candidate.endsWith('/cli-command.ts'),
    );
    assert.deepEqual(otherCommands, []);
    assert.deepEqual(matching(urls, mcpClientSdk), []);
    assert.deepEqual(matching(urls, mcpServerSdk), []);
    assert.deepEqual(matching(urls, /\/node_modules\/ai\//), []);
    assert.deepEqual(matching(urls, /\/node_modules\/undici\//), []);
  });

  test("the MCP endpoint's first request loads the MCP server SDK, not the client's", async () => {
    const response = await fetch(`${url}/v1/mcp/default`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    await response.arrayBuffer();
    const urls = await loaded();
    assert.notDeepEqual(matching(urls, mcpServerSdk), [], `status ${response.status}`);
    assert.deepEqual(matching(urls, mcpClientSdk), []);
  });

  test('connecting to an MCP server loads the MCP client SDK', async () => {
    const response = await fetch(`${url}/v1/admin/mcp-servers/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'everything',
        endpoint: {
          transport: 'streamable-http',
          url: `${mcp.baseUrl.replace('127.0.0.1', 'localhost')}/mcp`,
        },
        authType: 'none',
      }),
    });
    const answer = (await response.json()) as { tools?: { name: string }[] };
    assert.equal(response.status, 200, JSON.stringify(answer));
    assert.ok(answer.tools?.some((tool) => tool.name === 'echo'));
    assert.notDeepEqual(matching(await loaded(), mcpClientSdk), []);
  });
});
