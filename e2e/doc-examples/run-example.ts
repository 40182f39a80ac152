// Runs one example of docs/examples as its own Node process, against the scripted model of its scenario.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { startScriptedModelServer } from '@toolbus/core/testing';
import { startTestPostgres } from '@toolbus/storage-postgres/testing';
import type { ExampleScenario } from './scenarios.ts';

export interface ExampleRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `file` with this Node in `cwd`. `development` loads the workspace's TypeScript sources (the repo's own
 * tests); without it the example loads what `cwd`'s node_modules hold (the packed install).
 */
export async function runExample(
  file: string,
  scenario: ExampleScenario,
  options: { readonly cwd: string; readonly development: boolean; readonly timeoutMs?: number },
): Promise<ExampleRun> {
  const server = scenario.turns ? await startScriptedModelServer({ turns: scenario.turns }) : undefined;
  const postgres = scenario.postgres ? await startTestPostgres() : undefined;
  try {
    const database = postgres
      ? {
          DATABASE_URL: await postgres.createDatabase(),
          TOOLBUS_SECRET_KEY: randomBytes(32).toString('base64'),
        }
      : {};
    const child = spawn(
      process.execPath,
      [...(options.development ? ['--conditions=development'] : []), file],
      {
        cwd: options.cwd,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          ...(server ? { TOOLBUS_MODEL: `openai-compatible:${server.url}/v1#scripted` } : {}),
          ...database,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk: Buffer) => (stderr += String(chunk)));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearTimeout(timer);
    return { code, stdout, stderr };
  } finally {
    await server?.close();
    await postgres?.stop();
  }
}
