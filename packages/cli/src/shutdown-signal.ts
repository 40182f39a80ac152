import type { CliIo } from './cli-io.ts';
import { EXIT_CODES } from './exit-codes.ts';

/** The first SIGINT or SIGTERM a command stops on, from {@link shutdownSignal}. */
export interface ShutdownSignal {
  /** Resolves with the first signal's name. */
  readonly received: Promise<NodeJS.Signals>;
  /** Aborted by the first signal (its reason: the signal's name), for work that stops on it. */
  readonly signal: AbortSignal;
  /** Stops listening: a signal from then on does what it does to any process (ends it, 130 or 143). */
  dispose(): void;
}

const signals = ['SIGINT', 'SIGTERM'] as const;

/** The exit code of a process stopped by `signal`, as a shell reports one killed by it (128 + its number). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? EXIT_CODES.interrupted : EXIT_CODES.terminated;
}

/**
 * Listens for SIGINT and SIGTERM, the CLI's one owner of them: the first asks the command to stop (a server ends
 * its normal life and exits 0; `toolbus index` finishes the file in flight and `toolbus chat` stops the answer,
 * keeping it, and both exit 130 or 143). From then on a second signal of either kind (a stop waiting on work that
 * does not end) exits at once, with 130 or 143 as a shell reports a process killed by that signal. `command` names
 * the command in that last line.
 *
 * One listener per signal stays for the whole wait, rather than the first being swapped for a second: Node stops
 * watching a signal with no listener, and a second signal already queued behind the first would then be lost.
 */
export function shutdownSignal(io: CliIo, command: string): ShutdownSignal {
  const controller = new AbortController();
  let resolveReceived: (signal: NodeJS.Signals) => void = () => {};
  const received = new Promise<NodeJS.Signals>((resolve) => {
    resolveReceived = resolve;
  });
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!controller.signal.aborted) {
      controller.abort(signal);
      resolveReceived(signal);
      return;
    }
    io.stderr.write(`${command}: ${signal} again, exiting without waiting for running work\n`);
    process.exit(signalExitCode(signal));
  };
  for (const name of signals) process.on(name, onSignal);
  return {
    received,
    signal: controller.signal,
    dispose() {
      for (const name of signals) process.off(name, onSignal);
    },
  };
}
