// A long MCP tool in `toolbus chat`, driven through the real CLI process: a real 2025-11-25 stdio server (the 1.x
// SDK) reports progress, which shows on the tool's line and keeps the call alive past the configured MCP call
// timeout (`mcp.toolCallTimeoutMs`); a tool as long that reports nothing ends at that timeout. On a terminal the
// line is redrawn in place with each report (checked on the renderer, which the CLI writes through).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { ScriptedRequest } from '@toolbus/core/testing';
import type { PacketObject } from '@toolbus/spec';
import { addNodeMcpServer, setCliConfig } from './__fixtures__/cli-home.ts';
import { useScriptedCliHome } from './__fixtures__/scripted-cli-home.ts';
import { spawnCli } from './__fixtures__/spawn-cli.ts';
import { terminalScreen } from './__fixtures__/terminal-screen.ts';
import { configFileProblems } from './config-file-problems.ts';
import { TerminalRenderer } from './terminal-renderer.ts';

const progressServer = new URL('./__fixtures__/progress-mcp-server.mjs', import.meta.url).pathname;
/**
 * The call timeout. The server's tools work 60 steps of 200 ms (three timeouts); reports come twenty times per
 * timeout, so a loaded machine does not stretch a gap between two of them past it.
 */
const timeoutMs = 4000;

describe('a long MCP tool in toolbus chat', () => {
  const cliHome = useScriptedCliHome({
    prefix: 'toolbus-mcp-progress-',
    handler: (request: ScriptedRequest) => {
      if (request.lastMessage?.role === 'tool') {
        return [
          { type: 'text', text: `The tool said: ${request.lastMessage.toolResults[0]?.content ?? ''}` },
        ];
      }
      const name = request.lastMessage?.text.includes('quietly') ? 'silent' : 'crunch';
      return [{ type: 'tool-call', id: `call_${name}`, name, arguments: {} }];
    },
  });
  before(async () => {
    await setCliConfig(cliHome.env, [['mcp.toolCallTimeoutMs', String(timeoutMs)]]);
    await addNodeMcpServer(cliHome.env, 'progress', progressServer);
  });

  test("progress shows on the tool's line and keeps the call alive past the timeout", async () => {
    const result = await spawnCli(['chat', 'Crunch the numbers'], cliHome.env);
    assert.equal(result.code, 0, result.stderr);
    // The line shows the server's reports, the last ones well past two call timeouts (20 reports each). Not
    // necessarily 60/60: under load the last report and the result were seen in either order, and a report that
    // comes after the call ended is not drawn (CI showed 59/60).
    const shown = /✓ crunch — (\d+)\/60 \(\d+%\) · crunching/.exec(result.stdout);
    assert.ok(shown, result.stdout);
    assert.ok(Number(shown[1]) > 40, `progress shown up to ${shown[1]}/60 only`);
    assert.match(result.stdout, /The tool said: finished/);
  });

  test('a tool as long that reports nothing ends at the timeout', async () => {
    const result = await spawnCli(['chat', 'Work quietly'], cliHome.env);
    assert.match(result.stdout, /✗ silent — .*timed out/i);
    assert.doesNotMatch(result.stdout, /too late/);
  });
});

test('on a terminal, the tool line is redrawn in place with each progress report', () => {
  let written = '';
  const renderer = new TerminalRenderer({
    write: (text) => {
      written += text;
    },
    interactive: true,
    color: false,
    columns: 80,
  });
  const at = { turn: 0, tab: 0 };
  const render = (obj: PacketObject) => renderer.render({ placement: at, modelIndex: 0, obj });
  render({ type: 'tool-start', toolCallId: 'c1', toolName: 'crunch', displayName: 'crunch', arguments: {} });
  render({ type: 'tool-progress', toolCallId: 'c1', message: '1/3 (33%) · crunching' });
  assert.match(terminalScreen(written), /crunch — 1\/3 \(33%\) · crunching/);
  render({ type: 'tool-progress', toolCallId: 'c1', message: '2/3 (67%) · crunching' });
  const screen = terminalScreen(written);
  assert.match(screen, /crunch — 2\/3 \(67%\) · crunching/);
  assert.doesNotMatch(screen, /1\/3/, 'the line changed in place, not a new line per report');
});

test('a whole-number setting stored by config set as a JSON number is read back, and checked', () => {
  assert.deepEqual(
    configFileProblems({ mcp: { toolCallTimeoutMs: 1500 }, redis: { turnLockMs: 30000 } }),
    [],
  );
  assert.match(configFileProblems({ mcp: { toolCallTimeoutMs: 0 } }).join(), /whole number above 0/);
  assert.match(configFileProblems({ mcp: { toolCallTimeoutMs: 'soon' } }).join(), /whole number above 0/);
});
