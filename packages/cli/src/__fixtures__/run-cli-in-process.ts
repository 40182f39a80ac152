import type { CliIo } from '../cli-io.ts';
import { runCli } from '../main.ts';

/** What the CLI's entry function wrote and returned. */
export interface InProcessRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the CLI's entry function in this process with `env` as its whole environment and `cwd` as its folder, its
 * output captured (what `cli-entry.ts` does with the process's streams): quicker than a child process, for tests
 * of what a command prints and stores.
 */
export async function runCliInProcess(
  argv: readonly string[],
  options: { readonly env: Readonly<Record<string, string>>; readonly cwd: string },
): Promise<InProcessRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { ...options.env },
    cwd: options.cwd,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}
