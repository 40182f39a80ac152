// `toolbus serve` holds only what serving needs until something uses more: its memory at rest is what it loaded.
// Proven on the real command in a child process whose every module load is recorded (a --import hook): at start
// no other command's module, no MCP SDK, no `ai` package and no undici; the MCP server SDK once the MCP endpoint
// is called; the MCP client SDK once an MCP server is connected to; the model's provider package at the first
// turn (only the one the model needs); the gateway package only in a serve whose config file has a gateway.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import { startEverythingHttpServer } from '../../mcp/src/__fixtures__/everything-server.ts';
import { postFirstMessage } from './__fixtures__/post-first-message.ts';
import { killStartedClis, type RunningCli, spawnCli, startCli } from './__fixtures__/spawn-cli.ts';

const hook = new URL('./__fixtures__/record-module-loads.mjs', import.meta.url).pathname;

let home: string;
let log: string;
let cli: RunningCli;
let url: string;
let mcp: { baseUrl: string; close(): Promise<void> };
let model: ScriptedModelServer;

/** The URLs of the modules a serve process (default: the one started first) has loaded so far. */
async function loaded(of: RunningCli = cli, file: string = log): Promise<string[]> {
  const pid = String(of.child.pid);
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line.startsWith(`${pid} `))
    .map((line) => line.slice(pid.length + 1));
}

const matching = (urls: readonly string[], pattern: RegExp) =>
  urls.filter((candidate) => pattern.test(candidate));

const mcpClientSdk = /\/node_modules\/@modelcontextprotocol\/(client|sdk\/dist\/esm\/client)\//;
const mcpServerSdk = /\/node_modules\/@modelcontextprotocol\/(server|sdk\/dist\/esm\/server)\//;
const providerPackage = (name: string) => new RegExp(`/node_modules/@ai-sdk/${name}/`);
const providers = ['openai', 'openai-compatible', 'anthropic'];
/**
 * The gateway package's modules, all but its config schema (zod only, which the config file check reads) and the
 * alias rules that schema checks patterns with.
 */
const gatewayCode = (urls: readonly string[]) =>
  matching(urls, /\/(packages\/gateway|node_modules\/@toolbus\/gateway)\//).filter(
    (candidate) => !/\/(gateway-options|model-aliases)\.(ts|js)$/.test(candidate),
  );

before(async () => {
  home = await mkdtemp(join(tmpdir(), 'toolbus-serve-lazy-'));
  log = join(home, 'modules.log');
  await writeFile(log, '');
  mcp = await startEverythingHttpServer();
  model = await startScriptedModelServer({
    turns: [{ repeat: true, steps: [{ type: 'text', text: 'Hello.' }] }],
  });
  // The MCP check below connects to the fixture on loopback: the name localhost is allowed for it.
  const allowed = await spawnCli(['config', 'set', 'allowHosts', 'localhost'], { TOOLBUS_HOME: home });
  assert.equal(allowed.code, 0, allowed.stderr);
  cli = startCli(['serve', '--port', '0'], {
    TOOLBUS_HOME: home,
    TOOLBUS_MODEL: `openai-compatible:${model.url}/v1#scripted`,
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
  await model?.close();
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
    assert.deepEqual(gatewayCode(urls), [], 'no gateway section: no gateway code');
    for (const name of providers) assert.deepEqual(matching(urls, providerPackage(name)), [], name);
  });

  test("the first turn loads its model's provider package, and only that one", async () => {
    const { response } = await postFirstMessage(url, { content: 'hi' });
    const stream = await response.text();
    assert.match(stream, /Hello\./, "the turn streamed the model's answer");
    const urls = await loaded();
    assert.notDeepEqual(matching(urls, providerPackage('openai-compatible')), []);
    assert.deepEqual(matching(urls, providerPackage('openai')), []);
    assert.deepEqual(matching(urls, providerPackage('anthropic')), []);
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

test('a serve whose config file has a gateway section loads the gateway package at start', {
  timeout: 120_000,
}, async () => {
  const gatewayHome = await mkdtemp(join(tmpdir(), 'toolbus-serve-lazy-gateway-'));
  const gatewayLog = join(gatewayHome, 'modules.log');
  await writeFile(gatewayLog, '');
  await writeFile(
    join(gatewayHome, 'config.json'),
    JSON.stringify({ gateway: { upstreams: [{ name: 'scripted', baseUrl: `${model.url}/v1` }] } }),
  );
  const withGateway = startCli(['serve', '--port', '0'], {
    TOOLBUS_HOME: gatewayHome,
    NODE_OPTIONS: `--import=${hook}`,
    TOOLBUS_TEST_MODULE_LOG: gatewayLog,
  });
  try {
    await withGateway.waitForMatch(/recovery gateway: (\S+)/);
    assert.notDeepEqual(gatewayCode(await loaded(withGateway, gatewayLog)), []);
  } finally {
    withGateway.child.kill('SIGTERM');
    await withGateway.exited;
    await rm(gatewayHome, { recursive: true, force: true });
  }
});
