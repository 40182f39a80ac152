import { spawn } from 'node:child_process';
import { omitUndefined } from '@toolbus/spec';

const entry = new URL('../cli-entry.ts', import.meta.url).pathname;

/** What a spawned `toolbus` printed and how it exited. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real CLI from source in a child process, with only `env` (plus PATH) in its environment. */
export function spawnCli(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  options: { readonly input?: string; readonly cwd?: string } = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--conditions=development', entry, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: env.TOOLBUS_HOME ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...omitUndefined({ cwd: options.cwd }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdin.end(options.input ?? '');
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The path of the CLI's source entry, for drivers that spawn it themselves (a pseudo-terminal). */
export const cliEntry: string = entry;
