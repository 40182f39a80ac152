import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { useScriptedCliHome } from './__fixtures__/scripted-cli-home.ts';
import { spawnCli, startCli } from './__fixtures__/spawn-cli.ts';

// Every configured sandbox service is down when the turn starts: run_python is still offered, its call gets the
// pool's own words, and `toolbus serve` shows the state on /health and in its log.

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('all sandbox services down when a turn starts', () => {
  const cliHome = useScriptedCliHome({
    prefix: 'toolbus-sandbox-down-',
    handler: (request) =>
      request.lastMessage?.role === 'tool'
        ? [{ type: 'text', text: 'The sandbox is down, so I could not compute it.' }]
        : [{ type: 'tool-call', id: 'call_py', name: 'run_python', arguments: { code: 'print(6 * 7)' } }],
  });
  before(async () => {
    const urls = [`http://127.0.0.1:${await closedPort()}`, `http://127.0.0.1:${await closedPort()}`];
    await writeFile(join(cliHome.home, 'config.json'), JSON.stringify({ sandboxUrls: urls }));
  });

  it('offers run_python and answers its call with "none of the 2 code interpreter services answers"', async () => {
    const result = await spawnCli(['chat', 'What is six times seven? Compute it.'], cliHome.env);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(cliHome.model.requests[0]?.toolNames.includes('run_python'), 'the tool was offered');
    const toolResults =
      cliHome.model.requests.at(-1)?.messages.flatMap((message) => message.toolResults) ?? [];
    const answer = toolResults.find((toolResult) => toolResult.toolCallId === 'call_py')?.content ?? '';
    assert.match(answer, /none of the 2 code interpreter services answers right now/);
    assert.doesNotMatch(answer, /no tool named/i);
  });

  it('toolbus serve: /health says the sandbox is down, and the log says so in words', {
    timeout: 120_000,
  }, async () => {
    const serve = startCli(['serve', '--port', '0'], cliHome.env);
    await serve.waitForOutput('serving on');
    const url = /serving on (\S+)/.exec(serve.output().stdout)?.[1] as string;
    let health: {
      ok: boolean;
      status?: string;
      components?: Record<string, { status: string; detail?: string }>;
    };
    do {
      health = (await (await fetch(`${url}/health`)).json()) as typeof health;
    } while (health.components?.sandbox?.status !== 'down');
    assert.equal(health.ok, true, 'the process itself serves');
    assert.equal(health.status, 'degraded');
    assert.match(
      health.components.sandbox.detail ?? '',
      /none of the 2 sandbox services answers .*run_python calls fail until one is back/,
    );
    // Logged before /health changed; the pipe from the child may deliver it a moment later.
    let line: string | undefined;
    while (line === undefined) {
      line = serve
        .output()
        .stderr.split('\n')
        .find((entry) => entry.includes('"sandbox.down"'));
      if (line === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal((JSON.parse(line) as { level: string }).level, 'warn');
    serve.child.kill('SIGTERM');
    assert.equal(await serve.exited, 0);
  });
});
