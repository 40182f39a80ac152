// The default `toolbus serve` as a new user starts it: the real CLI process on a fresh TOOLBUS_HOME (local mode, the
// built web app at /, the in-process sandbox), with only the model replaced by a scripted one over real HTTP.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ScriptedModelServer,
  type ScriptedRequest,
  type ScriptedStep,
  startScriptedModelServer,
} from '@toolbus/core/testing';
import { type CliRun, spawnCli, startCli } from '../../../packages/cli/src/__fixtures__/spawn-cli.ts';

/** A running `toolbus serve`. */
export interface ServeWorld {
  /** Where it serves (`http://127.0.0.1:<port>`). */
  readonly url: string;
  readonly home: string;
  readonly model: ScriptedModelServer;
  /** What the server process printed so far. */
  output(): { readonly stdout: string; readonly stderr: string };
  /** Runs another `toolbus` command on the same TOOLBUS_HOME (`history`, `persona list`). */
  cli(args: readonly string[]): Promise<CliRun>;
  close(): Promise<void>;
}

/** Starts `toolbus serve --port 0` on a fresh home, its model answering with `handler`. */
export async function startServeWorld(options: {
  readonly handler: (request: ScriptedRequest) => ScriptedStep[];
  /** More of the process's environment (a TOOLBUS_ALLOW_HOSTS, …). */
  readonly env?: Readonly<Record<string, string>>;
  /** More arguments of `toolbus serve`. */
  readonly args?: readonly string[];
  /** Files (name → text) written to `<home>/documents` and indexed with `toolbus index` before serving. */
  readonly documents?: Readonly<Record<string, string>>;
}): Promise<ServeWorld> {
  const home = await mkdtemp(join(tmpdir(), 'toolbus-serve-web-'));
  const model = await startScriptedModelServer({ handler: options.handler });
  const env = {
    TOOLBUS_HOME: home,
    TOOLBUS_MODEL: `openai-compatible:${model.url}/v1#scripted`,
    ...options.env,
  };
  if (options.documents) {
    const folder = join(home, 'documents');
    await mkdir(folder);
    for (const [name, text] of Object.entries(options.documents)) await writeFile(join(folder, name), text);
    const indexed = await spawnCli(['index', folder], env);
    if (indexed.code !== 0) throw new Error(`toolbus index failed: ${indexed.stderr}`);
  }
  const serve = startCli(['serve', '--port', '0', ...(options.args ?? [])], env);
  try {
    await serve.waitForOutput('OpenAPI document');
  } catch (error) {
    await model.close();
    await rm(home, { recursive: true, force: true });
    throw error;
  }
  const url = /serving on (\S+)/.exec(serve.output().stdout)?.[1];
  if (!url) throw new Error(`toolbus serve printed no URL: ${serve.output().stdout}`);
  return {
    url: url.replace(/\/$/, ''),
    home,
    model,
    output: () => serve.output(),
    cli: (args) => spawnCli(args, env),
    async close() {
      serve.child.kill('SIGTERM');
      await serve.exited;
      await model.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}
