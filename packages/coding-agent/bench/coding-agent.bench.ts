// The coding agent over the real sandbox, a loopback archive server (a real `git archive` of a small repository)
// and the scripted model server. (1) Time from the coding_agent call's start to the first command's first output,
// split at the first bash-start (download, upload, session, unpack). (2) Per-command cost of one `rg` through the
// bash tool (session, streamed, packets), the session's streamed and batch endpoints, against the same command
// run with `bash -c` directly on the host, side by side in one run. `npm run bench -- coding-agent`
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Emitter, resolveLanguageModel, runToolCalls } from '@toolbus/core';
import { createGuardedFetch } from '@toolbus/core/node';
import { startLoopbackHttpServer, startScriptedModelServer } from '@toolbus/core/testing';
import { startInterpreterServer } from '@toolbus/interpreter';
import { CodeInterpreterClient } from '@toolbus/sandbox';
import type { Packet } from '@toolbus/spec';
import { createBashTool } from '../src/bash-tool.ts';
import { createCodingAgentTool } from '../src/coding-agent-tool.ts';
import { createTestRepository } from '../src/testing/index.ts';

const run = promisify(execFile);
const folder = await mkdtemp(join(tmpdir(), 'toolbus-coding-agent-bench-'));
const repositoryPath = join(folder, 'tinyhttp');
const repository = await createTestRepository(repositoryPath);
const interpreter = await startInterpreterServer();
const client = new CodeInterpreterClient({ baseUrl: interpreter.url });
const archives = await startLoopbackHttpServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/x-gzip' }).end(repository.archive);
});
const fetch = createGuardedFetch({ allow: ['127.0.0.0/8'] });
const command = 'rg -n "startServer" src';
const models = await startScriptedModelServer({
  handler: (request) => {
    const results = request.messages.flatMap((message) => message.toolResults);
    if (request.toolNames.includes('bash')) {
      return results.length === 0
        ? [{ type: 'tool-call', id: 'b1', name: 'bash', arguments: { cmd: command } }]
        : [{ type: 'tool-call', id: 'done', name: 'generate_answer', arguments: {} }];
    }
    return [{ type: 'text', text: 'At src/server.ts:3.' }];
  },
});
const model = resolveLanguageModel(
  { provider: 'openai', model: 'gpt-test', baseUrl: `${models.url}/v1` },
  { env: { OPENAI_API_KEY: 'k' } },
);
const tool = createCodingAgentTool({
  client,
  model,
  fetch,
  host: {
    name: 'bench',
    webHosts: [`127.0.0.1:${archives.port}`],
    archiveUrl: `${archives.origin}/{owner}/{repo}/archive.tar.gz`,
  },
});

async function agentRun(): Promise<{ toFirstCommand: number; toFirstOutput: number; total: number }> {
  const emitter = new Emitter();
  const stamps: Array<{ at: number; packet: Packet }> = [];
  const reading = (async () => {
    for await (const packet of emitter) stamps.push({ at: performance.now(), packet });
  })();
  const started = performance.now();
  const { outcomes } = await runToolCalls({
    calls: [
      {
        id: 'c1',
        name: 'coding_agent',
        arguments: { query: 'Where is the server started?', github_repo: 'acme/tinyhttp' },
        placement: { turn: 0, tab: 0 },
      },
    ],
    tools: [tool],
    emitter,
  });
  const total = performance.now() - started;
  emitter.close();
  await reading;
  if (outcomes[0]?.status !== 'success')
    throw new Error(`coding_agent failed: ${outcomes[0]?.response.llmFacing}`);
  const start = stamps.find((stamp) => stamp.packet.obj.type === 'coding-agent-start')?.at ?? started;
  const bashStart = stamps.find((stamp) => stamp.packet.obj.type === 'bash-start')?.at;
  const output = stamps.find(
    (stamp) => stamp.packet.obj.type === 'bash-delta' && stamp.packet.obj.stdout !== undefined,
  )?.at;
  if (bashStart === undefined || output === undefined) throw new Error('no command output');
  return { toFirstCommand: bashStart - start, toFirstOutput: output - start, total };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
await agentRun(); // warm-up
const runs: Array<Awaited<ReturnType<typeof agentRun>>> = [];
for (let round = 0; round < 5; round += 1) runs.push(await agentRun());

// Per command: one session, the same command, each way in turn.
const { session_id: sessionId } = await client.createSession({
  ttl_seconds: 600,
  files: [
    {
      path: 'repo.tar.gz',
      file_id: (
        await client.uploadFile({ filename: 'repo.tar.gz', content: new Uint8Array(repository.archive) })
      ).file_id,
    },
  ],
});
await client.runSessionCommand(sessionId, { command: 'tar -xzf repo.tar.gz --strip-components=1' });
const bash = createBashTool({ client, sessionId, commandTimeoutMs: 60_000, maxOutputCharacters: 50_000 });
const ways: Record<string, () => Promise<unknown>> = {
  direct: () => run('bash', ['-c', command], { cwd: repositoryPath }),
  batch: () => client.runSessionCommand(sessionId, { command }),
  streamed: async () => {
    for await (const _event of client.runSessionCommandStream(sessionId, { command })) {
    }
  },
  tool: async () => {
    const emitter = new Emitter();
    const reading = (async () => {
      for await (const _packet of emitter) {
      }
    })();
    await runToolCalls({
      calls: [{ id: 'x', name: 'bash', arguments: { cmd: command }, placement: { turn: 0, tab: 0 } }],
      tools: [bash],
      emitter,
    });
    emitter.close();
    await reading;
  },
};
const timings: Record<string, number[]> = { direct: [], batch: [], streamed: [], tool: [] };
for (const way of Object.values(ways)) await way();
for (let round = 0; round < 15; round += 1) {
  for (const [name, way] of Object.entries(ways)) {
    const started = performance.now();
    await way();
    timings[name]?.push(performance.now() - started);
  }
}
await client.deleteSession(sessionId);
await models.close();
await archives.close();
await fetch.close();
await interpreter.close();
await rm(folder, { recursive: true, force: true });

const ms = (value: number) => `${value.toFixed(1)} ms`;
const direct = median(timings.direct ?? []);
console.log('## Coding agent (`coding_agent`, real sandbox)\n');
console.log(
  `Repository: a real \`git archive\` tarball of 3 files (${repository.archive.byteLength} bytes), over loopback; median of 5 runs.\n`,
);
console.log('| coding_agent call | median |');
console.log('|---|---|');
console.log(
  `| start → first bash-start (download, upload, session, unpack, first model step) | ${ms(median(runs.map((r) => r.toFirstCommand)))} |`,
);
console.log(
  `| start → first command output (bash-delta) | ${ms(median(runs.map((r) => r.toFirstOutput)))} |`,
);
console.log(
  `| whole call (two agent steps, the answer step, session deleted) | ${ms(median(runs.map((r) => r.total)))} |`,
);
console.log(`\nPer command (\`${command}\`), median of 15, side by side:\n`);
console.log('| way | median | vs `bash -c` |');
console.log('|---|---|---|');
for (const [name, label] of [
  ['direct', '`bash -c` on the host (execFile)'],
  ['batch', 'session, batch endpoint (`/bash`)'],
  ['streamed', 'session, streamed endpoint (`/bash/stream`)'],
  ['tool', 'the bash tool (streamed endpoint, packets, runner)'],
] as const) {
  const value = median(timings[name] ?? []);
  console.log(`| ${label} | ${ms(value)} | ${(value / direct).toFixed(1)}× |`);
}
console.log('');
