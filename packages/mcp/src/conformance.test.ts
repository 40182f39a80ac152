// The official MCP conformance suite (`@modelcontextprotocol/conformance`, client mode) drives our client
// (__fixtures__/conformance-client.ts) against its scenario servers on this machine. Scenarios left out: elicitation
// (toolbus declares no elicitation capability: it is a server-side backend), basic-cimd (needs an https client
// metadata URL the suite would fetch from outside), sse-retry (its verdict depends on reconnect timing).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const suiteEntry = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist',
  'index.js',
);
const clientScript = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'conformance-client.ts');
const workDirectory = mkdtempSync(join(tmpdir(), 'toolbus-mcp-conformance-'));

// A representative set (each scenario costs two Node processes); MCP_CONFORMANCE_ALL=1 runs every client scenario
// that applies.
const representative = [
  'initialize',
  'tools_call',
  'auth/metadata-default',
  'auth/scope-step-up',
  'auth/token-endpoint-auth-basic',
  'auth/pre-registration',
];
const all = [
  ...representative,
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/2025-03-26-oauth-metadata-backcompat',
  'auth/2025-03-26-oauth-endpoint-fallback',
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
];
const scenarios = process.env.MCP_CONFORMANCE_ALL === '1' ? all : representative;

function runScenario(scenario: string): Promise<{ code: number | null; output: string }> {
  const command = `${JSON.stringify(process.execPath)} --conditions=development ${JSON.stringify(clientScript)}`;
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [suiteEntry, 'client', '--command', command, '--scenario', scenario],
      {
        cwd: workDirectory,
        env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += String(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += String(chunk);
    });
    child.once('close', (code) => resolve({ code, output }));
  });
}

describe('MCP conformance suite, client scenarios', { concurrency: 2 }, () => {
  after(() => rmSync(workDirectory, { recursive: true, force: true }));
  for (const scenario of scenarios) {
    test(scenario, async () => {
      const { code, output } = await runScenario(scenario);
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
      assert.ok(summary, `no result line:\n${output.slice(-2000)}`);
      assert.equal(summary[3], '0', output.slice(-3000));
      assert.equal(summary[4], '0', output.slice(-3000));
      assert.ok(Number(summary[2]) > 0);
      assert.equal(code, 0, output.slice(-3000));
    });
  }
});
