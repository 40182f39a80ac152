// The start of most CLI tests: a fresh TOOLBUS_HOME and a scripted model server over real HTTP, and the
// environment a spawned `toolbus` gets to use both.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  startScriptedModelServer,
} from '@toolbus/core/testing';

/** A CLI home with its scripted model; `close` stops the model and removes the home. */
export interface ScriptedCliHome {
  readonly home: string;
  readonly model: ScriptedModelServer;
  /** TOOLBUS_HOME and TOOLBUS_MODEL, for {@link spawnCli}. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

/** Creates a home named after `prefix` in the temporary directory and a model answering by `handler`. */
export async function startScriptedCliHome(options: {
  readonly prefix: string;
  readonly handler: NonNullable<ScriptedModelServerOptions['handler']>;
}): Promise<ScriptedCliHome> {
  const home = await mkdtemp(join(tmpdir(), options.prefix));
  const model = await startScriptedModelServer({ handler: options.handler });
  return {
    home,
    model,
    env: { TOOLBUS_HOME: home, TOOLBUS_MODEL: `openai-compatible:${model.url}/v1#scripted` },
    async close() {
      await model.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}
