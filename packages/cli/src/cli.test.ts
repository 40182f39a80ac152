import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestRepository } from '@toolbus/coding-agent/testing';
import {
  createCitingModelHandler,
  freeLoopbackPort,
  type ScriptedModelServer,
  type ScriptedStep,
  startScriptedModelServer,
} from '@toolbus/core/testing';
import { setCliConfig, writeCliDocs } from './__fixtures__/cli-home.ts';
import { type ScriptedCliHome, startScriptedCliHome } from './__fixtures__/scripted-cli-home.ts';
import { spawnCli } from './__fixtures__/spawn-cli.ts';

describe('the toolbus command line', () => {
  let cli: ScriptedCliHome;
  let home: string;
  let docs: string;
  let server: ScriptedModelServer;
  let site: Server;
  let siteUrl: string;
  let env: Record<string, string>;
  before(async () => {
    site = createHttpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        '<html><head><title>Returns desk</title></head><body><article><h1>Returns desk</h1>' +
          '<p>The returns desk in Bergen is open on weekdays from nine to five.</p></article></body></html>',
      );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const address = site.address();
    siteUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/returns`;
    cli = await startScriptedCliHome({
      prefix: 'toolbus-home-',
      handler: createCitingModelHandler({
        toolCalls: (_question, toolNames) => [
          { name: 'internal_search', arguments: { queries: ['refund'] } },
          { name: 'internal_search', arguments: { queries: ['ship'] } },
          ...(toolNames.includes('open_url') ? [{ name: 'open_url', arguments: { urls: [siteUrl] } }] : []),
        ],
      }),
    });
    ({ home, model: server, env } = cli);
    docs = await writeCliDocs(home, {
      'refunds.md': '# Refund Policy\n\nCustomers are refunded within 14 days of a return.\n',
      'shipping.txt': 'Orders ship within two business days from the Oslo warehouse.\n',
    });
    // The guarded fetch refuses loopback unless allowed: this is how an on-premise site is allowed.
    await setCliConfig(env, [['allowHosts', '127.0.0.1']]);
  });
  after(async () => {
    await new Promise((resolve) => site.close(resolve));
    await cli.close();
  });

  test('index reports what it did and is incremental', async () => {
    const first = await spawnCli(['index', docs], env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(
      first.stdout,
      /Indexed 2 file\(s\): 2 added, 0 updated, 0 unchanged; 0 skipped, 0 failed; 0 removed from the index\./,
    );
    const second = await spawnCli(['index', docs], env);
    assert.match(second.stdout, /0 added, 0 updated, 2 unchanged/);
  });

  test('chat answers with parallel internal_search and open_url calls and cited sources', async () => {
    const result = await spawnCli(
      ['chat', 'How long do refunds and shipping take, and when is the returns desk open?'],
      env,
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /✓ Internal Search — 2 documents/);
    assert.match(result.stdout, /✓ Open URL — 1 document/);
    assert.match(result.stdout, /Customers are refunded within 14 days of a return\. \[1\]/);
    assert.match(result.stdout, /Orders ship within two business days from the Oslo warehouse\. \[2\]/);
    assert.match(result.stdout, /The returns desk in Bergen is open on weekdays from nine to five\. \[3\]/);
    assert.match(
      result.stdout,
      /Sources:\n {2}\[1\] Refund Policy — file:\/\/.*refunds\.md\n {2}\[2\] shipping — file:\/\/.*shipping\.txt\n {2}\[3\] Returns desk — http:\/\/127\.0\.0\.1/,
    );
    const answered = server.requests
      .at(-1)
      ?.messages.flatMap((message) => message.toolResults.map((toolResult) => toolResult.toolCallId));
    assert.equal(answered?.length, 3, 'every call id was answered (two merged searches and the page)');
    // Read over node:http (createNodeHttpFetch), as the server reads its models: undici's fetch always adds
    // sec-fetch-mode (and accept-language, accept-encoding), node:http adds none.
    for (const request of server.requests) assert.ok(!request.headerNames.includes('sec-fetch-mode'));
  });

  test('--packets prints the packet stream as NDJSON; --tools narrows the tools', async () => {
    const result = await spawnCli(['chat', '--packets', '--tools', 'internal_search', 'refunds?'], env);
    assert.equal(result.code, 0, result.stderr);
    const packets = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(packets.at(-1).obj.type, 'stop');
    assert.ok(packets.some((packet) => packet.obj.type === 'citation-info'));
    assert.deepEqual(server.requests.at(-1)?.toolNames, ['internal_search']);
    const unknown = await spawnCli(['chat', '--tools', 'teleport', 'x'], env);
    assert.equal(unknown.code, 2, 'a wrong --tools is a wrong command line');
    assert.match(
      unknown.stderr,
      /--tools: unknown tool "teleport"\. Built-in tools: internal_search, web_search/,
    );
  });

  test('a memory saved with add_memory in one chat reaches the next chat', async () => {
    const memoryServer = await startScriptedModelServer({
      handler: (request) => {
        const system = request.messages.find((message) => message.role === 'system')?.text ?? '';
        if (system.includes('You maintain a short list of facts')) {
          return [
            {
              type: 'text',
              text: '{"operation": "add", "memory_id": null, "memory_text": "User drinks green tea"}',
            },
          ];
        }
        if (request.lastMessage?.text.includes('remember')) {
          return [
            {
              type: 'tool-call',
              id: 'call_memory',
              name: 'add_memory',
              arguments: { memory: 'I drink green tea' },
            },
          ];
        }
        if (request.lastMessage?.role === 'tool') return [{ type: 'text', text: 'Noted.' }];
        return [
          {
            type: 'text',
            text: system.includes('User drinks green tea') ? 'You like green tea.' : 'I do not know.',
          },
        ];
      },
    });
    const memoryEnv = { ...env, TOOLBUS_MODEL: `openai-compatible:${memoryServer.url}/v1#scripted` };
    try {
      assert.equal((await spawnCli(['config', 'set', 'memory', 'on'], memoryEnv)).code, 0);
      const saved = await spawnCli(['chat', 'Please remember that I drink green tea.'], memoryEnv);
      assert.equal(saved.code, 0, saved.stderr);
      assert.match(saved.stdout, /✓ Memory/);
      const later = await spawnCli(['chat', 'What do I like to drink?'], memoryEnv);
      assert.equal(later.code, 0, later.stderr);
      assert.match(later.stdout, /You like green tea\./);
    } finally {
      await spawnCli(['config', 'set', 'memory', 'off'], memoryEnv);
      await memoryServer.close();
    }
  });

  test('stored skills reach the sandbox read-only, and the model is told which exist and where', async () => {
    const seeded = await spawnCli(['skills', 'seed'], env);
    assert.equal(seeded.code, 0, seeded.stderr);
    const listed = await spawnCli(['skills', 'list'], env);
    assert.match(listed.stdout, /csv-analysis/);
    const code = [
      'import os',
      "print(sorted(os.listdir('/workspace/managed/skills')))",
      "print(open('/workspace/managed/skills/csv-analysis/SKILL.md').read().splitlines()[0])",
      'try:',
      "    open('/workspace/managed/skills/csv-analysis/injected.txt', 'w')",
      "    print('WRITABLE')",
      'except OSError:',
      "    print('read-only')",
    ].join('\n');
    const skillServer = await startScriptedModelServer({
      handler: (request) =>
        request.lastMessage?.role === 'tool'
          ? [{ type: 'text', text: `Sandbox said: ${request.lastMessage.toolResults[0]?.content ?? ''}` }]
          : [{ type: 'tool-call', id: 'call_py', name: 'run_python', arguments: { code } }],
    });
    try {
      const result = await spawnCli(['chat', 'Which skills do you have?'], {
        ...env,
        TOOLBUS_MODEL: `openai-compatible:${skillServer.url}/v1#scripted`,
      });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /\['csv-analysis', 'pdf-reports'\]/);
      // The tool result is JSON: SKILL.md's first line (its front matter) then the refused write.
      assert.match(result.stdout, /\\n---\\nread-only\\n/, 'SKILL.md read; writing next to it refused');
      assert.doesNotMatch(result.stdout, /WRITABLE/);
      const system =
        skillServer.requests[0]?.messages.find((message) => message.role === 'system')?.text ?? '';
      assert.match(system, /csv-analysis/);
      assert.match(system, /\/workspace\/managed\/skills/);
    } finally {
      await skillServer.close();
    }
  });

  test('chat offers coding_agent on the in-process sandbox: a local checkout, a line per command, path:line', async () => {
    const repository = join(home, 'projects', 'tinyhttp');
    await createTestRepository(repository);
    const configFile = join(home, 'config.json');
    const saved = await readFile(configFile, 'utf8').catch(() => '{}');
    const config = {
      ...(JSON.parse(saved) as object),
      codingAgent: { localRoots: [join(home, 'projects')] },
    };
    await writeFile(configFile, JSON.stringify(config));
    const agentServer = await startScriptedModelServer({
      handler: (request) => {
        const results = request.messages.flatMap((message) => message.toolResults);
        // The chat's model and the agent's each call one tool, then go on once its result is in.
        const callFirst = (
          call: { id: string; name: string; arguments: Record<string, unknown> },
          then: ScriptedStep[],
        ): ScriptedStep[] => (results.length === 0 ? [{ type: 'tool-call', ...call }] : then);
        if (request.toolNames.includes('coding_agent')) {
          return callFirst(
            {
              id: 'call_agent',
              name: 'coding_agent',
              arguments: { query: 'Where is the server started?', github_repo: repository },
            },
            [{ type: 'text', text: `Found it: ${results[0]?.content ?? ''}` }],
          );
        }
        if (request.toolNames.includes('bash')) {
          return callFirst({ id: 'call_rg', name: 'bash', arguments: { cmd: 'rg -n startServer src' } }, [
            { type: 'tool-call', id: 'call_done', name: 'generate_answer', arguments: {} },
          ]);
        }
        const line = /src\/server\.ts:(\d+):export function startServer/.exec(
          request.lastMessage?.text ?? '',
        );
        return [{ type: 'text', text: `startServer is at src/server.ts:${line?.[1] ?? '?'}.` }];
      },
    });
    try {
      const result = await spawnCli(
        ['chat', '--tools', 'coding_agent', 'Where does tinyhttp start its server?'],
        {
          ...env,
          TOOLBUS_MODEL: `openai-compatible:${agentServer.url}/v1#scripted`,
        },
      );
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Coding Agent — .*tinyhttp: Where is the server started\?/);
      assert.match(result.stdout, /✓ \$ — rg -n startServer src/);
      assert.match(result.stdout, /Found it: startServer is at src\/server\.ts:3\./);
    } finally {
      await agentServer.close();
      await writeFile(configFile, saved);
    }
  });

  test('a model that does not answer gets an actionable error, not a stack trace', async () => {
    const port = await freeLoopbackPort();
    const result = await spawnCli(['chat', 'hello'], {
      TOOLBUS_HOME: home,
      OLLAMA_HOST: `http://127.0.0.1:${port}`,
    });
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      new RegExp(`no model answers at http://127\\.0\\.0\\.1:${port} — set TOOLBUS_MODEL or start Ollama`),
    );
    assert.doesNotMatch(result.stderr, /\n\s+at /);
    assert.equal(result.stdout, '', 'nothing (no tool line) is printed before the error');

    // A chat id that names no chat is the first thing said: fixing the model would only lead to it.
    const unknownChat = await spawnCli(['chat', '--chat', 'no-such-chat', 'hello'], {
      TOOLBUS_HOME: home,
      OLLAMA_HOST: `http://127.0.0.1:${port}`,
    });
    assert.equal(unknownChat.code, 1);
    assert.equal(unknownChat.stderr, 'toolbus: No chat no-such-chat; `toolbus history` lists the chats.\n');
  });

  test('config shows where settings and keys live, names only, and sets values', async () => {
    const set = await spawnCli(['config', 'set', 'sandboxUrl', 'http://127.0.0.1:8000'], env);
    assert.equal(set.code, 0, set.stderr);
    const shown = await spawnCli(['config'], { ...env, OPENAI_API_KEY: 'sk-should-never-print' });
    assert.match(shown.stdout, /config file: {4}.*config\.json/);
    assert.match(shown.stdout, /sandbox: {8}http:\/\/127\.0\.0\.1:8000/);
    assert.match(shown.stdout, /OPENAI_API_KEY: set/);
    assert.doesNotMatch(shown.stdout, /sk-should-never-print/);
    const bad = await spawnCli(['config', 'set', 'colour', 'blue'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Unknown setting "colour"/);
    await spawnCli(['config', 'unset', 'sandboxUrl'], env);
  });
});
