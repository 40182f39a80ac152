import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { ScriptedRequest, ScriptedStep } from '@toolbus/core/testing';
import { everythingServerEntry } from '../../assembly/src/__fixtures__/everything-server.ts';
import { useScriptedCliHome } from './__fixtures__/scripted-cli-home.ts';
import { spawnCli } from './__fixtures__/spawn-cli.ts';

const require = createRequire(import.meta.url);
const driftingServer = new URL('./__fixtures__/drifting-mcp-server.mjs', import.meta.url).pathname;
const githubDescription = require.resolve('@octokit/openapi/generated/api.github.com.json');

/** Answers tool results with their text; otherwise calls the planned tools the request offers. */
function plannedCalls(calls: readonly { name: string; arguments: Record<string, unknown> }[]) {
  return (request: ScriptedRequest): ScriptedStep[] => {
    if (request.lastMessage?.role === 'tool') {
      const results = request.messages.flatMap((message) =>
        message.toolResults.map((result) => result.content),
      );
      return [{ type: 'text', text: `Tool said: ${results.join(' | ')}` }];
    }
    const offered = calls.filter((call) => request.toolNames.includes(call.name));
    if (offered.length === 0)
      return [{ type: 'text', text: `No tools. Offered: ${request.toolNames.join(',')}` }];
    return offered.map((call, index) => ({
      type: 'tool-call',
      id: `call_${index}`,
      name: call.name,
      arguments: call.arguments,
    }));
  };
}

describe('tool sources from the command line: personas, MCP servers, OpenAPI documents', () => {
  let respond: (request: ScriptedRequest) => ScriptedStep[] = () => [{ type: 'text', text: 'unused' }];
  const cliHome = useScriptedCliHome({ prefix: 'toolbus-sources-', handler: (request) => respond(request) });

  test('persona create, list, use, show and rm', async () => {
    const created = await spawnCli(
      ['persona', 'create', 'mcp', '--no-built-ins', '--description', 'MCP only'],
      cliHome.env,
    );
    assert.equal(created.code, 0, created.stderr);
    const used = await spawnCli(['persona', 'use', 'mcp'], cliHome.env);
    assert.equal(used.code, 0, used.stderr);
    const listed = await spawnCli(['persona', 'list'], cliHome.env);
    assert.match(listed.stdout, /^ {2}default {2}\(\d+ tool sources\)/m);
    assert.match(listed.stdout, /^\* mcp {2}\(0 tool sources\) {2}MCP only$/m);
    const shown = await spawnCli(['persona', 'show', 'default'], cliHome.env);
    assert.match(shown.stdout, /built-in {2}internal_search/);
    const missing = await spawnCli(['persona', 'rm', 'nobody'], cliHome.env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /No persona named "nobody"\. Known personas: default, mcp\./);
  });

  test('a real MCP server from npm, added with mcp add, is used in a turn; an isError result is a failure', async () => {
    const added = await spawnCli(
      ['mcp', 'add', 'everything', '--yes', '--', process.execPath, everythingServerEntry, 'stdio'],
      cliHome.env,
    );
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /MCP server "everything" lists \d+ tool\(s\):\n(.*\n)* {2}echo /);
    assert.match(added.stdout, /Approved \d+ tool\(s\) of "everything" for the persona "mcp"\./);
    const listed = await spawnCli(['mcp', 'list'], cliHome.env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(
      listed.stdout,
      /✓ everything {2}\(stdio: .*server-everything.*stdio\) {2}(\d+) tool\(s\), \1 approved/,
    );

    respond = plannedCalls([
      { name: 'echo', arguments: { message: 'hello from the terminal' } },
      { name: 'get-sum', arguments: { a: 'two', b: 40 } },
    ]);
    const chat = await spawnCli(['chat', 'Echo something and add two numbers'], cliHome.env);
    assert.equal(chat.code, 0, chat.stderr);
    assert.match(chat.stdout, /✓ (Echo|echo)/i);
    // The server answered isError: a failure mark with the server's own message, never a success mark.
    assert.match(chat.stdout, /✗ [^\n]*sum[^\n]* — [^\n]*(number|invalid|expected)/i);
    assert.doesNotMatch(chat.stdout, /✓ [^\n]*sum/i);
    assert.match(chat.stdout, /Tool said: .*hello from the terminal/);
    // Few tools: all are sent, and the terminal and the packet stream both say so.
    assert.match(chat.stdout, /^tools: (\d+), all offered to the model \(no tool search\)$/m);
    const total = Number(/^tools: (\d+), all offered/m.exec(chat.stdout)?.[1]);
    assert.ok(total > 1 && total === cliHome.model.requests.at(-1)?.toolNames.length, `${total} tools`);
    const packets = await spawnCli(['chat', '--packets', 'Echo something and add two numbers'], cliHome.env);
    assert.equal(packets.code, 0, packets.stderr);
    assert.deepEqual(JSON.parse(packets.stdout.split('\n')[0] ?? '{}').obj, {
      type: 'tool-mode',
      mode: 'all',
      total,
      offered: total,
    });
  });

  test('unapproved and changed MCP tools are withheld with a note before the answer; approve offers them', async () => {
    const description = join(cliHome.home, 'description.txt');
    await writeFile(description, 'Tells whether the token variable reached the server.');
    const withToken = { ...cliHome.env, FIXTURE_TOKEN: 'token-by-name' };
    const added = await spawnCli(
      [
        'mcp',
        'add',
        'drifting',
        '--env',
        'FIXTURE_TOKEN',
        '--',
        process.execPath,
        driftingServer,
        description,
      ],
      withToken,
    );
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /secret_status {2}\[not approved\]/);
    assert.match(added.stdout, /Not approved yet: review the tools, then run `toolbus mcp approve drifting`/);
    respond = plannedCalls([{ name: 'secret_status', arguments: {} }]);
    // The variable's value was stored at add time: the chat's own environment does not have it.
    const withheld = await spawnCli(['chat', 'Did the token arrive?'], cliHome.env);
    assert.equal(withheld.code, 0, withheld.stderr);
    assert.match(
      withheld.stderr,
      /^note: Tools of MCP server "drifting" are withheld \(1 not approved\) — review and run `toolbus mcp approve drifting`$/m,
    );
    assert.doesNotMatch(cliHome.model.requests.at(-1)?.toolNames.join(',') ?? '', /secret_status/);

    const approved = await spawnCli(['mcp', 'approve', 'drifting'], cliHome.env);
    assert.equal(approved.code, 0, approved.stderr);
    const used = await spawnCli(['chat', 'Did the token arrive?'], cliHome.env);
    assert.equal(used.code, 0, used.stderr);
    assert.equal(used.stderr, '');
    assert.match(used.stdout, /Tool said: FIXTURE_TOKEN is present/);
    assert.doesNotMatch(used.stdout + used.stderr, /token-by-name/);

    // The server changes its tool: it is withheld again until approved again.
    await writeFile(description, 'Now also uploads your files somewhere.');
    const drifted = await spawnCli(['chat', 'Did the token arrive?'], cliHome.env);
    assert.match(drifted.stderr, /withheld \(1 changed since approval\)/);
    const tools = await spawnCli(['mcp', 'tools', 'drifting'], cliHome.env);
    assert.match(tools.stdout, /! secret_status {2}\[changed since approval\] {2}Now also uploads/);
    const listed = await spawnCli(['mcp', 'list'], cliHome.env);
    assert.match(
      listed.stdout,
      /! drifting .* 1 tool\(s\), 0 approved; 1 changed since approval: run toolbus mcp approve drifting/,
    );
  });

  test('a tool an MCP server lists after its tool set was approved is not offered, and is named before the answer and in mcp list', async () => {
    const description = join(cliHome.home, 'growing-description.txt');
    const extra = join(cliHome.home, 'growing-extra-tools.txt');
    await writeFile(description, 'Tells whether the token variable reached the server.');
    const added = await spawnCli(
      ['mcp', 'add', 'growing', '--yes', '--', process.execPath, driftingServer, description, extra],
      cliHome.env,
    );
    assert.equal(added.code, 0, added.stderr);
    respond = plannedCalls([
      { name: 'secret_status', arguments: {} },
      { name: 'secret_echo', arguments: {} },
    ]);
    const before = await spawnCli(['chat', 'Check the status'], cliHome.env);
    assert.equal(before.code, 0, before.stderr);
    assert.doesNotMatch(before.stderr, /growing/);

    // The server now lists a second tool nobody approved.
    await writeFile(extra, 'secret_echo\n');
    const grown = await spawnCli(['chat', 'Check the status'], cliHome.env);
    assert.equal(grown.code, 0, grown.stderr);
    assert.match(
      grown.stderr,
      /^note: Tools of MCP server "growing" are withheld \(1 new, not approved: secret_echo\) — review and run `toolbus mcp approve growing`$/m,
    );
    const offered = cliHome.model.requests.at(-1)?.toolNames ?? [];
    assert.ok(
      offered.some((name) => name.includes('secret_status')),
      `the approved tool is still offered: ${offered.join(',')}`,
    );
    assert.ok(!offered.some((name) => name.includes('secret_echo')), offered.join(','));
    const listed = await spawnCli(['mcp', 'list'], cliHome.env);
    assert.match(
      listed.stdout,
      /^! growing .* 2 tool\(s\), 1 approved; 1 new, not approved: run toolbus mcp approve growing$/m,
    );
    const tools = await spawnCli(['mcp', 'tools', 'growing'], cliHome.env);
    assert.match(tools.stdout, /^! secret_echo {2}\[new, not approved\]/m);

    const approved = await spawnCli(['mcp', 'approve', 'growing'], cliHome.env);
    assert.equal(approved.code, 0, approved.stderr);
    const used = await spawnCli(['chat', 'Check the status'], cliHome.env);
    assert.doesNotMatch(used.stderr, /growing/);
    assert.match(used.stdout, /secret_echo ran/);
  });

  test('MCP servers that cannot start are named, with the reason, in mcp add, mcp list and before the answer', async () => {
    const refused = await spawnCli(
      ['mcp', 'add', 'nope', '--yes', '--', join(cliHome.home, 'no-such-command')],
      cliHome.env,
    );
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^toolbus: MCP server "nope" cannot be used: .*(ENOENT|spawn|connect)/m);
    const launcher = join(cliHome.home, 'launcher.mjs');
    await writeFile(launcher, `await import(${JSON.stringify(`file://${driftingServer}`)});\n`);
    const description = join(cliHome.home, 'gone-description.txt');
    await writeFile(description, 'A tool that will be gone.');
    const added = await spawnCli(
      ['mcp', 'add', 'gone', '--yes', '--', process.execPath, launcher, description],
      cliHome.env,
    );
    assert.equal(added.code, 0, added.stderr);
    await rm(launcher);
    const listed = await spawnCli(['mcp', 'list'], cliHome.env);
    assert.equal(listed.code, 1, 'a server that cannot be used makes the list fail');
    assert.match(listed.stdout, /✗ gone {2}\(stdio: .*launcher\.mjs.*\) {2}cannot be used: .*/);
    assert.doesNotMatch(listed.stdout, /nope/, 'a server that never started was not kept');
    respond = plannedCalls([]);
    const chat = await spawnCli(['chat', 'hello'], cliHome.env);
    assert.equal(chat.code, 0, chat.stderr);
    assert.match(chat.stderr, /^note: MCP server "gone" is unavailable: .* \(its tools are not offered\)$/m);
    assert.ok(chat.stderr.indexOf('note:') === 0, 'the note comes before anything else');
    assert.equal((await spawnCli(['mcp', 'rm', 'gone'], cliHome.env)).code, 0);
  });

  test("GitHub's full REST description, added with openapi add, is found and called through tool search", async () => {
    // The real description, with its server pointed at a loopback stand-in for api.github.com.
    const requests: { url: string; headers: IncomingHttpHeaders }[] = [];
    const api: Server = createHttpServer((request, response) => {
      requests.push({ url: request.url ?? '', headers: request.headers });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify([{ number: 7, title: 'Crash when the cache is cold', state: 'open' }]));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const port = (api.address() as { port: number }).port;
    const document = JSON.parse(readFileSync(githubDescription, 'utf8'));
    document.servers = [{ url: `http://127.0.0.1:${port}` }];
    const file = join(cliHome.home, 'api.github.com.json');
    await writeFile(file, JSON.stringify(document));
    const githubEnv = { ...cliHome.env, GITHUB_TOKEN: 'ghp_never_printed_123' };
    try {
      assert.equal((await spawnCli(['config', 'set', 'allowHosts', '127.0.0.1'], cliHome.env)).code, 0);
      assert.equal((await spawnCli(['persona', 'create', 'github', '--no-built-ins'], cliHome.env)).code, 0);
      const added = await spawnCli(
        ['openapi', 'add', file, '--persona', 'github', '--name', 'github', '--bearer-env', 'GITHUB_TOKEN'],
        githubEnv,
      );
      assert.equal(added.code, 0, added.stderr);
      const count = Number(/: (\d+) tool\(s\)/.exec(added.stdout)?.[1]);
      assert.ok(count > 1000, `GitHub has over a thousand operations (${added.stdout})`);
      const listed = await spawnCli(['openapi', 'list', '--persona', 'github'], cliHome.env);
      assert.match(listed.stdout, /^github {2}\d+ operation\(s\) {2}auth: bearer$/m);

      respond = (request) => {
        const last = request.lastMessage;
        if (last?.role === 'user') {
          return [
            {
              type: 'tool-call',
              id: 'call_find',
              name: 'tool_search',
              arguments: { query: 'list issues of a repository' },
            },
          ];
        }
        const found = request.toolNames.find((name) => /^issues_list.for.repo$/.test(name));
        if (last?.toolResults[0]?.toolCallId === 'call_find' && found) {
          return [
            { type: 'tool-call', id: 'call_issues', name: found, arguments: { owner: 'octo', repo: 'demo' } },
          ];
        }
        return [{ type: 'text', text: `Open issues: ${last?.toolResults[0]?.content ?? 'none found'}` }];
      };
      const before = cliHome.model.requests.length;
      const chat = await spawnCli(
        ['chat', '--persona', 'github', 'Which issues are open in octo/demo?'],
        githubEnv,
      );
      assert.equal(chat.code, 0, chat.stderr);
      assert.match(chat.stdout, /^tools: \d{4}, more than this model takes at once — offering tool_search/m);
      const turnRequests = cliHome.model.requests.slice(before);
      assert.deepEqual(turnRequests[0]?.toolNames, ['tool_search'], 'one tool instead of every operation');
      assert.ok((turnRequests[1]?.toolNames.length ?? 0) <= 6);
      assert.deepEqual(
        requests.map((request) => request.url),
        ['/repos/octo/demo/issues'],
      );
      assert.equal(requests[0]?.headers.authorization, 'Bearer ghp_never_printed_123');
      assert.match(chat.stdout, /Open issues: [\s\S]*Crash when the cache is cold/);
      assert.doesNotMatch(chat.stdout + chat.stderr, /ghp_never_printed_123/);
      const packets = await spawnCli(
        ['chat', '--packets', '--persona', 'github', 'Which issues are open in octo/demo?'],
        githubEnv,
      );
      const first = JSON.parse(packets.stdout.split('\n')[0] ?? '{}');
      assert.equal(first.obj.type, 'tool-mode');
      assert.equal(first.obj.mode, 'search');
    } finally {
      await new Promise((resolve) => api.close(resolve));
    }
  });

  test('files made by an MCP tool are written to the output folder and listed by files', async () => {
    assert.equal((await spawnCli(['persona', 'use', 'mcp'], cliHome.env)).code, 0);
    respond = plannedCalls([{ name: 'get-tiny-image', arguments: {} }]);
    const output = join(cliHome.home, 'out');
    const chat = await spawnCli(['chat', '--output', output, 'Show me a tiny image'], cliHome.env);
    assert.equal(chat.code, 0, chat.stderr);
    const written = await readdir(output);
    assert.equal(written.length, 1);
    const bytes = await readFile(join(output, written[0] as string));
    assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47], 'a PNG');
    assert.match(chat.stdout, new RegExp(`Files written:\\n {2}${output}/${written[0]}`));
    const listed = await spawnCli(['files', 'list'], cliHome.env);
    const id = new RegExp(`^(\\S+) {2}${written[0]?.replace('.', '\\.')} {2}image/png`, 'm').exec(
      listed.stdout,
    )?.[1];
    assert.ok(id, listed.stdout);
    const again = await spawnCli(['files', 'get', id, '--output', output], cliHome.env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /-2\.png\n$/, 'never overwrites: a second copy gets its own name');
  });
});
