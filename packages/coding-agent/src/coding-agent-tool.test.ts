import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resolveLanguageModel, runChatTurn } from '@toolbus/core';
import { createGuardedFetch, type GuardedFetch } from '@toolbus/core/node';
import {
  collectTurn,
  type LoopbackHttpServer,
  packetsOfType,
  type ScriptedModelServer,
  type ScriptedRequest,
  type ScriptedStep,
  startLoopbackHttpServer,
  startScriptedModelServer,
} from '@toolbus/core/testing';
import { type InterpreterServer, startInterpreterServer } from '@toolbus/interpreter';
import { checkPacketStream } from '@toolbus/research';
import { CodeInterpreterClient } from '@toolbus/sandbox';
import { omitUndefined } from '@toolbus/spec';
import type { BashResult } from './bash-tool.ts';
import type { CodingAgentLimits } from './coding-agent-limits.ts';
import { DEFAULT_CODING_AGENT_PROMPTS, HISTORY_NOTES } from './coding-agent-prompts.ts';
import { type CodingAgentToolOptions, createCodingAgentTool } from './coding-agent-tool.ts';
import type { RepositoryHost } from './repository-host.ts';
import type { CodingAgentOutcome } from './run-coding-agent.ts';
import { createTestRepository, TEST_REPOSITORY_COMMITS } from './testing/index.ts';

const TOKEN = 'ghp_secret-token-value';

/** What an inner step of the agent sees: the bash results so far, in order. */
const bashResults = (request: ScriptedRequest) =>
  request.messages.flatMap((message) => message.toolResults.map((result) => result.content));

const call = (id: string, name: string, args: Record<string, unknown>): ScriptedStep => ({
  type: 'tool-call',
  id,
  name,
  arguments: args,
  chunkSize: 7,
});

/** A scripted inner agent: a list of steps per cycle (by how many tool results it has seen). */
type AgentScript = (results: readonly string[], request: ScriptedRequest) => ScriptedStep[];

/** The final-answer step: cites the path:line the real `rg -n` output showed, and the last commit it saw. */
function answerFromTranscript(request: ScriptedRequest): ScriptedStep[] {
  const transcript = request.lastMessage?.text ?? '';
  const line = /src\/server\.ts:(\d+):export function startServer/.exec(transcript)?.[1];
  const port = /\\"port\\": (\d+)/.exec(transcript)?.[1] ?? /"port": (\d+)/.exec(transcript)?.[1];
  return [
    {
      type: 'text',
      text: `startServer is defined at src/server.ts:${line ?? '?'}; the default port is ${port ?? '?'} (src/config.json:1).`,
    },
  ];
}

describe('coding_agent end to end: scripted model, real sandbox, real git archives over loopback HTTP', () => {
  let interpreter: InterpreterServer;
  let client: CodeInterpreterClient;
  let models: ScriptedModelServer;
  let api: LoopbackHttpServer;
  let archives: LoopbackHttpServer;
  let fetch: GuardedFetch;
  let folder: string;
  let repository: { head: string; archive: Buffer };
  let host: RepositoryHost;
  let agentScript: AgentScript = () => [];
  let topLevelRepository = 'acme/tinyhttp';
  /** Bytes the oversized-archive route wrote before the client hung up. */
  let oversizedBytesWritten = 0;
  let oversizedClosed: Promise<void> = Promise.resolve();

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'toolbus-coding-agent-'));
    repository = await createTestRepository(join(folder, 'tinyhttp'));
    interpreter = await startInterpreterServer();
    client = new CodeInterpreterClient({ baseUrl: interpreter.url });
    // The archive host: public repository acme/tinyhttp; acme/private only through a signed URL.
    archives = await startLoopbackHttpServer((request, response) => {
      const send = (status: number, body: Buffer | string, type = 'application/x-gzip') =>
        response.writeHead(status, { 'content-type': type }).end(body);
      if (request.method !== 'GET') return send(405, 'GET only', 'text/plain');
      if (request.url === '/acme/tinyhttp/archive.tar.gz') return send(200, repository.archive);
      if (request.url === '/signed/acme/private.tar.gz?sig=abc') return send(200, repository.archive);
      if (request.url === '/acme/huge/archive.tar.gz') return streamForever(response);
      // Headers, a first piece of the archive, then silence; and a host that never answers at all.
      if (request.url === '/acme/stalls/archive.tar.gz') {
        response.writeHead(200, { 'content-type': 'application/x-gzip' });
        response.write(repository.archive.subarray(0, 100));
        return;
      }
      if (request.url === '/acme/silent/archive.tar.gz') return;
      return send(404, 'Not Found', 'text/plain');
    });
    // The API: answers a valid token with a redirect to the archive host (another origin), like GitHub's tarball.
    api = await startLoopbackHttpServer((request, response) => {
      if (request.headers.authorization !== `Bearer ${TOKEN}`) {
        response.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"Bad credentials"}');
        return;
      }
      if (request.url === '/repos/acme/private/tarball/HEAD') {
        response.writeHead(302, { location: `${archives.origin}/signed/acme/private.tar.gz?sig=abc` }).end();
        return;
      }
      response.writeHead(404).end();
    });
    host = {
      name: 'Test forge',
      webHosts: [`127.0.0.1:${archives.port}`],
      archiveUrl: `${archives.origin}/{owner}/{repo}/archive.tar.gz`,
      tokenArchiveUrl: `${api.origin}/repos/{owner}/{repo}/tarball/HEAD`,
    };
    // Loopback is exempt only here, in the test: the guarded fetch still checks every connection.
    fetch = createGuardedFetch({ allow: ['127.0.0.0/8'] });
    models = await startScriptedModelServer({
      handler: (request) => {
        if (request.toolNames.includes('coding_agent')) {
          const results = bashResults(request);
          if (results.length === 0) {
            return [
              call('top-1', 'coding_agent', {
                query: 'Where is the server started, and on which port?',
                github_repo: topLevelRepository,
              }),
            ];
          }
          return [{ type: 'text', text: `The coding agent says: ${results[0]}` }];
        }
        if (request.toolNames.includes('bash')) return agentScript(bashResults(request), request);
        return answerFromTranscript(request);
      },
    });
  });

  after(async () => {
    await models.close();
    await api.close();
    await archives.close();
    await fetch.close();
    await interpreter.close();
    await rm(folder, { recursive: true, force: true });
  });

  function streamForever(response: ServerResponse): void {
    oversizedBytesWritten = 0;
    oversizedClosed = new Promise((resolve) => response.on('close', () => resolve()));
    // The client hanging up mid-write is the point of this route: a write racing the hang-up errors, expectedly.
    response.on('error', () => undefined);
    response.writeHead(200, { 'content-type': 'application/x-gzip' });
    const chunk = randomBytes(64 * 1024);
    const write = () => {
      // Up to 64 MiB, far past the 1 MiB cap: the client must hang up long before.
      while (!response.destroyed && !response.socket?.destroyed && oversizedBytesWritten < 64 * 1024 * 1024) {
        oversizedBytesWritten += chunk.byteLength;
        if (!response.write(chunk)) {
          response.once('drain', write);
          return;
        }
      }
      if (!response.destroyed) response.end();
    };
    write();
  }

  const model = () =>
    resolveLanguageModel(
      { provider: 'openai', model: 'gpt-test', baseUrl: `${models.url}/v1` },
      { env: { OPENAI_API_KEY: 'k' } },
    );

  async function runTurn(
    options: { limits?: Partial<CodingAgentLimits>; token?: string; localRoots?: readonly string[] } = {},
  ) {
    const outcomes: Array<CodingAgentOutcome & { sessionId: string }> = [];
    const toolOptions: CodingAgentToolOptions = {
      client,
      model: model(),
      fetch,
      host,
      limits: { maxCycles: 6, ...options.limits },
      onOutcome: (outcome) => outcomes.push(outcome),
      ...omitUndefined({ token: options.token || undefined, localRoots: options.localRoots }),
    };
    const tool = createCodingAgentTool(toolOptions);
    const { packets, result } = await collectTurn(
      runChatTurn({
        model: model(),
        messages: [{ role: 'user', content: 'Look at tinyhttp for me' }],
        tools: [tool],
      }),
    );
    assert.deepEqual(models.failures, []);
    const toolResult = result.messages.find((message) => message.role === 'tool');
    assert.ok(toolResult && toolResult.role === 'tool');
    return { packets, result, outcome: outcomes[0], toolText: toolResult.content };
  }

  /** Plays `script` as the inner agent, keeping the bash results its latest step saw and its system prompt. */
  function recordAgent(script: AgentScript): { lastResults(): readonly string[]; system(): string } {
    let last: readonly string[] = [];
    let system = '';
    agentScript = (results, request) => {
      last = [...results];
      system = request.messages.find((message) => message.role === 'system')?.text ?? '';
      return script(results, request);
    };
    return { lastResults: () => last, system: () => system };
  }

  /** The bash results of the agent's last step that ran commands, parsed. */
  const parsed = (results: readonly string[]) => results.map((text) => JSON.parse(text) as BashResult);

  async function sessionGone(sessionId: string): Promise<void> {
    const response = await globalThis.fetch(`${interpreter.url}/v1/sessions/${sessionId}/bash`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'true' }),
    });
    assert.equal(response.status, 404, 'the session was deleted');
    await response.body?.cancel();
  }

  it('downloads the archive, explores it with rg, cat and git log, answers with path:line, deletes the session', async () => {
    topLevelRepository = `http://127.0.0.1:${archives.port}/acme/tinyhttp.git`;
    const agent = recordAgent((results) => {
      if (results.length === 0) {
        return [
          { type: 'text', text: 'Searching for the server first.' },
          call('b1', 'bash', { cmd: 'rg -n "startServer" src' }),
          call('b2', 'bash', { cmd: 'cat src/config.json' }),
        ];
      }
      if (results.length === 2) return [call('b3', 'bash', { cmd: 'git log --format="%h %s"' })];
      return [call('done', 'generate_answer', {})];
    });
    const { packets, result, outcome, toolText } = await runTurn();
    assert.equal(result.error, undefined, result.error?.message);
    assert.ok(outcome);
    assert.deepEqual(outcome.commands, [
      'rg -n "startServer" src',
      'cat src/config.json',
      'git log --format="%h %s"',
    ]);
    assert.equal(outcome.answeredByChoice, true);

    const [rg, cat, log] = parsed(agent.lastResults());
    assert.match(rg?.stdout ?? '', /^src\/server\.ts:3:export function startServer/m);
    assert.equal(cat?.stdout, '{ "port": 8080 }\n');
    // An archive has no history: the sandbox commits one snapshot that names the archive's commit.
    assert.match(log?.stdout ?? '', new RegExp(`snapshot of acme/tinyhttp at ${repository.head}`));
    // The agent is told so, and sees the top-level files and its budget.
    assert.ok(agent.system().includes(HISTORY_NOTES.snapshot));
    assert.match(agent.system(), /README\.md\nsrc/);
    assert.match(agent.system(), /at most 6 rounds/);
    assert.equal(rg?.exit_code, 0);

    assert.equal(
      toolText,
      'startServer is defined at src/server.ts:3; the default port is 8080 (src/config.json:1).',
    );
    assert.match(result.answer, /src\/server\.ts:3/);

    // The archive server saw plain GETs for the archive, and never a credential.
    const archiveRequests = archives.received.filter(
      (request) => request.url === '/acme/tinyhttp/archive.tar.gz',
    );
    assert.equal(archiveRequests.length, 1);
    assert.equal(archiveRequests[0]?.headers.authorization, undefined);

    // Packets: the agent's section at the top-level call, commands nested under it, the answer once.
    assert.deepEqual(checkPacketStream(packets), []);
    const [start] = packetsOfType(packets, 'coding-agent-start');
    assert.ok(start);
    assert.equal(start.obj.query, 'Where is the server started, and on which port?');
    const bashStarts = packetsOfType(packets, 'bash-start');
    assert.deepEqual(
      bashStarts.map((packet) => packet.obj.command),
      outcome.commands,
    );
    for (const packet of bashStarts) {
      assert.equal(packet.placement.turn, start.placement.turn);
      assert.equal(packet.placement.tab, start.placement.tab);
      assert.ok((packet.placement.path ?? []).length > 0, 'bash packets are nested under the agent');
    }
    const streamed = packetsOfType(packets, 'bash-delta')
      .filter((packet) => packet.obj.toolCallId === bashStarts[1]?.obj.toolCallId)
      .map((packet) => packet.obj.stdout ?? '')
      .join('');
    assert.equal(streamed, '{ "port": 8080 }\n');
    const ends = packetsOfType(packets, 'bash-delta').filter((packet) => packet.obj.exitCode !== undefined);
    assert.deepEqual(
      ends.map((packet) => packet.obj.exitCode),
      [0, 0, 0],
    );
    // The command streamed while the model wrote it (chunks of 7 characters).
    const argumentDeltas = packetsOfType(packets, 'tool-argument-delta').filter(
      (packet) => packet.obj.toolName === 'bash',
    );
    assert.ok(argumentDeltas.length > 3);
    assert.equal(
      argumentDeltas
        .filter((packet) => packet.obj.toolCallId === bashStarts[0]?.obj.toolCallId)
        .map((packet) => packet.obj.argumentDeltas.cmd ?? '')
        .join(''),
      'rg -n "startServer" src',
    );
    // The agent's own text is thinking, not the chat's answer; its answer arrives once, as coding-agent-final.
    assert.ok(
      packetsOfType(packets, 'reasoning-delta').some((packet) =>
        packet.obj.reasoning.includes('Searching for the server'),
      ),
    );
    assert.equal(packetsOfType(packets, 'coding-agent-final').length, 1);
    assert.equal(packetsOfType(packets, 'coding-agent-final')[0]?.obj.answer, toolText);
    assert.ok(
      packetsOfType(packets, 'message-delta').every((packet) => (packet.placement.path ?? []).length === 0),
      'no answer text inside the agent',
    );
    await sessionGone(outcome.sessionId);
  });

  it('opens a local checkout with its history (git log shows the real commits) and its uncommitted changes', async () => {
    topLevelRepository = `file://${join(folder, 'tinyhttp')}`;
    await writeFile(join(folder, 'tinyhttp', 'NOTES.md'), 'work in progress\n');
    const agent = recordAgent((results) => {
      if (results.length === 0) {
        return [
          call('l1', 'bash', { cmd: 'git log --format="%h %s"' }),
          call('l2', 'bash', { cmd: 'git status --short' }),
        ];
      }
      return [call('done', 'generate_answer', {})];
    });
    const { result, outcome } = await runTurn({ localRoots: [folder] });
    assert.equal(result.error, undefined, result.error?.message);
    assert.ok(outcome);
    const [log, status] = parsed(agent.lastResults());
    const subjects = (log?.stdout ?? '')
      .trim()
      .split('\n')
      .map((line) => line.slice(line.indexOf(' ') + 1));
    assert.deepEqual(subjects, [...TEST_REPOSITORY_COMMITS].reverse());
    assert.equal(status?.stdout, '?? NOTES.md\n');
    assert.ok(agent.system().includes(HISTORY_NOTES.full));
    await sessionGone(outcome.sessionId);
    await rm(join(folder, 'tinyhttp', 'NOTES.md'));
  });

  it('refuses a local folder outside the allowed roots', async () => {
    topLevelRepository = '/etc';
    agentScript = () => [call('done', 'generate_answer', {})];
    const { toolText } = await runTurn({ localRoots: [folder] });
    assert.match(toolText, /not inside a folder this tool may read/);
  });

  it('answers a missing repository with a friendly 404 error, before any session exists', async () => {
    topLevelRepository = 'acme/missing';
    agentScript = () => [call('done', 'generate_answer', {})];
    const { toolText, outcome } = await runTurn();
    assert.equal(outcome, undefined);
    assert.match(toolText, /Repository acme\/missing was not found on Test forge/);
    assert.match(toolText, /private repository needs a token/);
  });

  it('with a token: the API redirect is followed without it, so the archive host never sees it', async () => {
    topLevelRepository = 'acme/private';
    const from = archives.received.length;
    const apiFrom = api.received.length;
    agentScript = (results) =>
      results.length === 0 ? [call('p1', 'bash', { cmd: 'ls' })] : [call('done', 'generate_answer', {})];
    const { result, outcome } = await runTurn({ token: TOKEN });
    assert.equal(result.error, undefined, result.error?.message);
    assert.ok(outcome);
    const archiveSide = archives.received.slice(from);
    assert.deepEqual(
      archiveSide.map((request) => request.url),
      ['/acme/private/archive.tar.gz', '/signed/acme/private.tar.gz?sig=abc'],
    );
    for (const request of archiveSide) {
      assert.equal(request.headers.authorization, undefined);
      assert.ok(!JSON.stringify(request.headers).includes(TOKEN));
    }
    assert.equal(api.received.slice(apiFrom).length, 1);
    await sessionGone(outcome.sessionId);
  });

  it('a rejected token is a friendly 401 error, and the token still never reaches the archive host', async () => {
    topLevelRepository = 'acme/private';
    const from = archives.received.length;
    agentScript = () => [call('done', 'generate_answer', {})];
    const { toolText, outcome } = await runTurn({ token: 'ghp_wrong-token' });
    assert.equal(outcome, undefined);
    assert.match(toolText, /Test forge refused the configured token for acme\/private \(401\)/);
    assert.ok(!toolText.includes('ghp_wrong-token'), 'the token is not in the message');
    for (const request of archives.received.slice(from))
      assert.equal(request.headers.authorization, undefined);
  });

  it('stops an archive over the cap while it streams (the server is cut off early)', async () => {
    topLevelRepository = 'acme/huge';
    agentScript = () => [call('done', 'generate_answer', {})];
    const { toolText, outcome } = await runTurn({ limits: { maxArchiveBytes: 1024 * 1024 } });
    assert.equal(outcome, undefined);
    assert.match(toolText, /Repository acme\/huge is too big: its archive passes the 1 MiB limit/);
    await oversizedClosed;
    // Socket buffers hold a few MiB at most: far below the 64 MiB the server would have sent.
    assert.ok(oversizedBytesWritten < 16 * 1024 * 1024, `wrote ${oversizedBytesWritten} bytes`);
  });

  it('gives up on a host that sends no headers (connect timeout) or goes silent mid-archive (read timeout)', async () => {
    agentScript = () => [call('done', 'generate_answer', {})];
    topLevelRepository = 'acme/silent';
    const silent = await runTurn({ limits: { connectTimeoutMs: 300 } });
    assert.equal(silent.outcome, undefined);
    assert.match(
      silent.toolText,
      new RegExp(`127\\.0\\.0\\.1:${archives.port} did not answer within 0\\.3 s`),
    );
    topLevelRepository = 'acme/stalls';
    const stalled = await runTurn({ limits: { readTimeoutMs: 300 } });
    assert.equal(stalled.outcome, undefined);
    assert.match(stalled.toolText, /The archive of acme\/stalls stopped arriving for 0\.3 s/);
  });

  it('kills a command that hangs at its timeout, and the agent goes on', async () => {
    topLevelRepository = 'acme/tinyhttp';
    const agent = recordAgent((results) => {
      if (results.length === 0) return [call('h1', 'bash', { cmd: 'echo started; sleep 120' })];
      if (results.length === 1) return [call('h2', 'bash', { cmd: 'rg -n "startServer" src' })];
      return [call('done', 'generate_answer', {})];
    });
    const { outcome, toolText, packets } = await runTurn({ limits: { commandTimeoutMs: 1500 } });
    assert.ok(outcome);
    const [hung, next] = parsed(agent.lastResults());
    assert.equal(hung?.timed_out, true);
    assert.equal(hung?.exit_code, null);
    assert.match(hung?.error ?? '', /did not finish within 1500 ms/);
    assert.equal(hung?.stdout, 'started\n');
    assert.match(next?.stdout ?? '', /src\/server\.ts:3:/);
    assert.match(toolText, /src\/server\.ts:3/);
    const timedOut = packetsOfType(packets, 'bash-delta').filter((packet) => packet.obj.timedOut === true);
    assert.equal(timedOut.length, 1);
    await sessionGone(outcome.sessionId);
  });

  it('forces the answer when the model never calls generate_answer (cycle budget)', async () => {
    topLevelRepository = 'acme/tinyhttp';
    let agentSteps = 0;
    agentScript = (results) => {
      agentSteps += 1;
      return [call(`f${results.length}`, 'bash', { cmd: 'rg -n "startServer" src' })];
    };
    const { outcome, toolText, packets } = await runTurn({ limits: { maxCycles: 3 } });
    assert.ok(outcome);
    assert.equal(outcome.answeredByChoice, false);
    assert.equal(outcome.commands.length, 3);
    assert.equal(agentSteps, 3);
    assert.match(toolText, /^startServer is defined at src\/server\.ts:3/);
    assert.equal(packetsOfType(packets, 'coding-agent-final').length, 1);
    await sessionGone(outcome.sessionId);
  });

  it('forces the answer when the wall-clock budget runs out (no new cycle starts)', async () => {
    topLevelRepository = 'acme/tinyhttp';
    agentScript = (results) => [
      call(`w${results.length}`, 'bash', { cmd: 'sleep 1; rg -n "startServer" src' }),
    ];
    const { outcome, toolText } = await runTurn({ limits: { wallClockMs: 500, maxCycles: 10 } });
    assert.ok(outcome);
    assert.equal(outcome.answeredByChoice, false);
    assert.equal(outcome.commands.length, 1);
    assert.match(toolText, /^startServer is defined at src\/server\.ts:3/);
    await sessionGone(outcome.sessionId);
  });

  it('recovers a bash call the model wrote as text, and answers a non-string cmd with an example', async () => {
    topLevelRepository = 'acme/tinyhttp';
    const agent = recordAgent((results) => {
      if (results.length === 0) return [call('n1', 'bash', { cmd: 42 })];
      if (results.length === 1) {
        return [
          {
            type: 'text',
            text: '<tool_call>{"name": "bash", "arguments": {"cmd": "cat README.md"}}</tool_call>',
          },
        ];
      }
      return [call('done', 'generate_answer', {})];
    });
    const { outcome, result } = await runTurn();
    assert.ok(outcome);
    const [invalid, recovered] = agent.lastResults();
    assert.match(invalid ?? '', /cmd/);
    assert.match(invalid ?? '', /rg -n \\"TODO\\" src/, 'the error shows an example call');
    assert.equal((JSON.parse(recovered ?? '{}') as BashResult).stdout, '# tinyhttp\n\nA tiny HTTP server.\n');
    assert.deepEqual(outcome.commands, ['cat README.md']);
    assert.equal(result.error, undefined);
    await sessionGone(outcome.sessionId);
  });

  it('is available only while the sandbox answers', async () => {
    const tool = createCodingAgentTool({ client, model: model(), fetch, host });
    assert.equal(await tool.isAvailable({}), true);
    const offline = new CodeInterpreterClient({ baseUrl: 'http://127.0.0.1:9' });
    assert.equal(
      await createCodingAgentTool({ client: offline, model: model(), fetch, host }).isAvailable({}),
      false,
    );
    assert.ok(DEFAULT_CODING_AGENT_PROMPTS.answer.includes('path:line'));
  });
});
