// `npm run demo`, the main job: index a folder and answer a question about it with citations, through the real
// `toolbus` CLI. No model is installed on a fresh machine (and none may be downloaded), so the model here is a
// scripted one served over real HTTP in OpenAI's wire format (as Ollama or vLLM would serve a real one): it
// makes two internal_search calls in parallel, then answers from what the tools returned, citing it. Point
// TOOLBUS_MODEL at a real model to ask it yourself: `npx toolbus index docs && npx toolbus chat "..."`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCitingModelHandler, startScriptedModelServer } from '../packages/core/src/testing/index.ts';

const root = new URL('..', import.meta.url).pathname;
const question =
  process.argv[2] ?? 'How does toolbus run tool calls in parallel, and what happens on a timeout?';
const server = await startScriptedModelServer({
  handler: createCitingModelHandler({
    toolCalls: () => [
      { name: 'internal_search', arguments: { queries: ['parallel tool calls concurrency'] } },
      { name: 'internal_search', arguments: { queries: ['timeout aborted fenced'] } },
    ],
  }),
});
const home = mkdtempSync(join(tmpdir(), 'toolbus-demo-'));
const env = {
  ...process.env,
  TOOLBUS_HOME: home,
  TOOLBUS_MODEL: `openai-compatible:${server.url}/v1#demo-model`,
};
// Asynchronous on purpose: the scripted model server runs in this process and must keep answering.
const cli = (args: string[]) =>
  new Promise<number>((resolve) => {
    console.log(
      `\n$ toolbus ${args.map((arg) => (arg.includes(' ') ? JSON.stringify(arg) : arg)).join(' ')}`,
    );
    const entry = join(root, 'packages/cli/src/cli-entry.ts');
    const child = spawn(process.execPath, ['--conditions=development', entry, ...args], {
      cwd: root,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
try {
  const indexed = await cli(['index', 'docs', 'README.md']);
  const answered = await cli(['chat', question]);
  process.exitCode = indexed || answered;
} finally {
  await server.close();
  rmSync(home, { recursive: true, force: true });
}
