import type { CliIo } from './cli-io.ts';
import { runCli } from './main.ts';

/**
 * Runs `toolbus` as this process (the installed bin and the source entry both call it): the process's streams,
 * environment and folder, and its exit code. When the reader of the output goes away (`toolbus history | head`),
 * writing fails with EPIPE: that is not a crash to print, it is the end of anyone listening, so the command is
 * told (`io.outputClosed`: a running turn stops as Ctrl-C would stop it, and its history is kept) and the rest of
 * the output is dropped quietly.
 */
export async function runCliProcess(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const outputClosed = new AbortController();
  const onStreamError = (error: NodeJS.ErrnoException): void => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') {
      if (!outputClosed.signal.aborted) outputClosed.abort(new Error('the output was closed'));
      return;
    }
    // Any other failure to write (a full disk behind a redirect): say it once where it can still be read.
    if (!process.stderr.destroyed)
      process.stderr.write(`toolbus: cannot write the output: ${error.message}\n`);
    process.exitCode = 1;
  };
  process.stdout.on('error', onStreamError);
  process.stderr.on('error', onStreamError);
  const io: CliIo = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    outputClosed: outputClosed.signal,
  };
  const code = await runCli(argv, io);
  if (!process.exitCode) process.exitCode = code;
}
