import { createInterface } from 'node:readline';
import type { CliIo } from './cli-io.ts';
import { EXIT_CODES } from './exit-codes.ts';
import { signalStopReason, USER_STOP_REASON } from './run-cli-turn.ts';

/**
 * The interactive loop on a terminal. Ctrl-C while an answer is running stops that answer (the model stream and
 * its tools are aborted) and returns to the prompt; Ctrl-C at the prompt, a second Ctrl-C, Ctrl-D or an empty
 * line end the chat. `stop` (a SIGTERM, or a SIGINT not typed at this terminal) ends the chat, stopping a running
 * answer as Ctrl-C does. Resolves to the exit code of the last turn (0 when the chat ended at the prompt).
 */
export async function runInteractiveChat(input: {
  readonly io: CliIo;
  readonly stdin: NodeJS.ReadableStream;
  readonly header: string;
  readonly ask: (question: string, signal: AbortSignal) => Promise<number>;
  /** Aborted (its reason: the signal's name) by the process's first SIGINT or SIGTERM (`shutdownSignal`). */
  readonly stop?: AbortSignal;
}): Promise<number> {
  const { io } = input;
  const readline = createInterface({
    input: input.stdin,
    output: io.stdout as NodeJS.WritableStream,
    terminal: true,
  });
  let running: AbortController | undefined;
  let closed = false;
  let lineWaiter: ((line: string | undefined) => void) | undefined;
  const finish = () => {
    closed = true;
    running?.abort(new Error('the chat ended'));
    lineWaiter?.(undefined);
  };
  readline.on('SIGINT', () => {
    if (running && !running.signal.aborted) {
      running.abort(new Error(USER_STOP_REASON));
      return;
    }
    io.stdout.write('\n');
    readline.close();
  });
  readline.on('close', finish);
  // Readline takes Ctrl-C typed at the terminal as a key; a signal sent to the process comes here.
  const onStop = () => {
    if (!running) io.stdout.write('\n');
    else if (!running.signal.aborted) running.abort(new Error(signalStopReason(input.stop?.reason)));
    readline.close();
  };
  input.stop?.addEventListener('abort', onStop, { once: true });
  readline.on('line', (line) => {
    const waiter = lineWaiter;
    lineWaiter = undefined;
    waiter?.(line);
  });
  const nextLine = () =>
    new Promise<string | undefined>((resolve) => {
      if (closed) {
        resolve(undefined);
        return;
      }
      lineWaiter = resolve;
      readline.setPrompt('\n› ');
      readline.prompt();
    });
  let status: number = EXIT_CODES.ok;
  try {
    io.stdout.write(input.header);
    for (;;) {
      const line = (await nextLine())?.trim();
      if (!line) break;
      running = new AbortController();
      // While an answer runs, typed lines are not questions: readline keeps reading only to see Ctrl-C.
      status = await input.ask(line, running.signal);
      const stopped = running.signal.aborted;
      running = undefined;
      if (closed) break;
      if (stopped) status = EXIT_CODES.ok;
    }
  } finally {
    input.stop?.removeEventListener('abort', onStop);
    readline.close();
  }
  return status;
}
