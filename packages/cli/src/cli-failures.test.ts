import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ScriptedRequest, ScriptedStep } from '@toolbus/core/testing';
import { useScriptedCliHome } from './__fixtures__/scripted-cli-home.ts';
import { spawnCli } from './__fixtures__/spawn-cli.ts';

describe('failures that used to look like success, from the command line', () => {
  let work: string;
  let respond: (request: ScriptedRequest) => ScriptedStep[] = () => [{ type: 'text', text: 'unused' }];
  const cliHome = useScriptedCliHome({ prefix: 'toolbus-failures-', handler: (request) => respond(request) });
  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'toolbus-work-'));
  });
  after(async () => {
    await rm(work, { recursive: true, force: true });
  });

  test('a guard refusal and failing code get a failure mark with the cause; the model reads the cause', async () => {
    respond = (request) =>
      request.lastMessage?.role === 'tool'
        ? [{ type: 'text', text: 'Both failed.' }]
        : [
            {
              type: 'tool-call',
              id: 'call_url',
              name: 'open_url',
              arguments: { urls: ['http://10.20.30.40/admin'] },
            },
            { type: 'tool-call', id: 'call_py', name: 'run_python', arguments: { code: 'print(1 / 0)' } },
          ];
    const result = await spawnCli(['chat', 'Open the admin page and divide by zero'], cliHome.env, {
      cwd: work,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /✗ Open URL — Opened 0 of 1 page\. Could not open http:\/\/10\.20\.30\.40\/admin: blocked/,
    );
    assert.match(result.stdout, /✗ Code Interpreter — exit 1: ZeroDivisionError: division by zero/);
    assert.doesNotMatch(result.stdout, /✓ Open URL/);
    const results = cliHome.model.requests.at(-1)?.messages.flatMap((message) => message.toolResults) ?? [];
    const page = results.find((toolResult) => toolResult.toolCallId === 'call_url');
    assert.match(page?.content ?? '', /private, internal or metadata address/, 'the model reads the reason');
    assert.doesNotMatch(page?.content ?? '', /unexpected internal error/);
  });

  test('a run_python chart is written to ./toolbus-output and its path printed', async () => {
    const code = [
      'import matplotlib',
      "matplotlib.use('Agg')",
      'import matplotlib.pyplot as plt',
      'plt.bar(["north", "south"], [12, 7])',
      'plt.savefig("chart.png")',
      "print('saved')",
    ].join('\n');
    respond = (request) =>
      request.lastMessage?.role === 'tool'
        ? [{ type: 'text', text: 'Here is the chart of sales by region.' }]
        : [{ type: 'tool-call', id: 'call_chart', name: 'run_python', arguments: { code } }];
    const result = await spawnCli(['chat', 'Chart sales by region'], cliHome.env, { cwd: work });
    assert.equal(result.code, 0, result.stderr);
    const folder = join(work, 'toolbus-output');
    assert.deepEqual(await readdir(folder), ['chart.png']);
    const bytes = await readFile(join(folder, 'chart.png'));
    assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47]);
    assert.match(result.stdout, new RegExp(`Files written:\\n {2}${folder}/chart\\.png\\n`));
  });

  test('hitting the cycle limit without an answer says so and exits 3', async () => {
    respond = (request) =>
      request.toolNames.length === 0
        ? [{ type: 'text', text: '' }]
        : [
            {
              type: 'tool-call',
              id: `call_${cliHome.model.requests.length}`,
              name: 'internal_search',
              arguments: { queries: ['more'] },
            },
          ];
    const result = await spawnCli(['chat', '--max-cycles', '2', 'Search forever'], cliHome.env, {
      cwd: work,
    });
    assert.equal(result.code, 3, result.stderr);
    assert.match(
      result.stderr,
      /^toolbus: no answer — the model used all 2 cycles and wrote no answer in the last one \(which has no tools\)\. .*--max-cycles/m,
    );
    assert.equal(result.stderr.match(/toolbus:/g)?.length, 1, 'said once');
  });

  test('model errors say what the server did and what to try', async () => {
    const site: Server = createHttpServer((request, response) => {
      const path = request.url ?? '';
      if (path.startsWith('/html/')) {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<!doctype html><title>Welcome to nginx!</title>');
      } else if (path.startsWith('/json/')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'hi' } }] }),
        );
      } else if (path.startsWith('/drop/')) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(
          'data: {"id":"1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]}\n\n',
        );
        setTimeout(() => response.socket?.destroy(), 50);
      } else if (path.startsWith('/hang/')) {
        // Never answers: no status line, no headers.
      } else {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('404 page not found');
      }
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
    const ask = (base: string, extra: string[] = []) =>
      spawnCli(
        ['chat', ...extra, 'hello'],
        { TOOLBUS_HOME: cliHome.home, TOOLBUS_MODEL: `openai-compatible:${base}#m` },
        { cwd: work },
      );
    try {
      const [html, json, missingV1, dropped, silent] = await Promise.all([
        ask(`${origin}/html/v1`),
        ask(`${origin}/json/v1`),
        ask(origin),
        ask(`${origin}/drop/v1`),
        ask(`${origin}/hang/v1`, ['--model-timeout', '1']),
      ]);
      for (const run of [html, json, missingV1, dropped, silent]) {
        assert.equal(run.code, 1, run.stderr);
        assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
      }
      assert.match(
        html.stderr,
        /sent an HTML page where a model stream was expected: this URL is a web site/,
      );
      assert.match(
        json.stderr,
        /answered with one JSON body where a stream \(server-sent events\) was expected/,
      );
      assert.match(
        missingV1.stderr,
        /answered 404 Not Found at http:\/\/127\.0\.0\.1:\d+\/chat\/completions\. The base URL probably lacks \/v1/,
      );
      assert.match(dropped.stderr, /the connection to the model at .* dropped in the middle of the answer/);
      assert.match(dropped.stdout, /Hel/, 'what arrived before the drop was shown');
      // The first timeout is reported at once (not after every retry), then the final error.
      const notice = silent.stderr.indexOf('has sent no response headers for 1 s');
      assert.ok(notice >= 0, silent.stderr);
      assert.equal(silent.stderr.match(/has sent no response headers/g)?.length, 1);
      assert.ok(silent.stderr.indexOf('sent nothing within 1 s, even after retries') > notice);
    } finally {
      site.closeAllConnections();
      await new Promise((resolve) => site.close(resolve));
    }
  });
});
