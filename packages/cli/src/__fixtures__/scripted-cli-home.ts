// The start of most CLI tests: a fresh TOOLBUS_HOME and a scripted model server over real HTTP, and the
// environment a spawned `toolbus` gets to use both.
import {
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  startScriptedModelServer,
} from '@toolbus/core/testing';
import { startCliHome, useForSuite } from './cli-home.ts';

/** A CLI home with its scripted model; `close` stops the model and removes the home. */
export interface ScriptedCliHome {
  readonly home: string;
  readonly model: ScriptedModelServer;
  /** TOOLBUS_HOME and TOOLBUS_MODEL, for {@link spawnCli}. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

/** What {@link startScriptedCliHome} takes. */
export interface ScriptedCliHomeOptions {
  readonly prefix: string;
  readonly handler: NonNullable<ScriptedModelServerOptions['handler']>;
  readonly modelId?: string;
}

/**
 * Creates a home named after `prefix` in the temporary directory and a model answering by `handler`, under the
 * model id `modelId` (default `scripted`; a real model's id, such as a Qwen one, picks that model's profile).
 */
export async function startScriptedCliHome(options: ScriptedCliHomeOptions): Promise<ScriptedCliHome> {
  const model = await startScriptedModelServer({ handler: options.handler });
  const cliHome = await startCliHome({
    prefix: options.prefix,
    model: `openai-compatible:${model.url}/v1#${options.modelId ?? 'scripted'}`,
  });
  return {
    home: cliHome.home,
    model,
    env: cliHome.env,
    async close() {
      await model.close();
      await cliHome.close();
    },
  };
}

/**
 * A scripted home for the tests of the enclosing `describe` (or file), like `useCliHome`: started in its `before`
 * (a later `before` of the file may set it up further), closed in its `after`. Read `home`, `model` and `env`
 * inside hooks and tests, once it is started.
 */
export function useScriptedCliHome(options: ScriptedCliHomeOptions): Omit<ScriptedCliHome, 'close'> {
  return useForSuite(() => startScriptedCliHome(options));
}
