import type { CliIo } from './cli-io.ts';
import { EXIT_CODES } from './exit-codes.ts';

/**
 * Waits for SIGINT or SIGTERM: the end of a server's normal life, so the shutdown that follows exits 0. From then on a
 * second signal of either kind (a shutdown waiting on work that does not stop) exits at once, with 130 or 143 as a
 * shell reports a process killed by that signal. `command` names the server in that last line.
 */
export function shutdownSignal(io: CliIo, command: string): Promise<NodeJS.Signals> {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  return new Promise((resolve) => {
    const first = (signal: NodeJS.Signals): void => {
      for (const name of signals) process.off(name, first);
      for (const name of signals) {
        process.once(name, () => {
          io.stderr.write(`${command}: ${name} again, exiting without waiting for running work\n`);
          process.exit(name === 'SIGINT' ? EXIT_CODES.interrupted : EXIT_CODES.terminated);
        });
      }
      resolve(signal);
    };
    for (const name of signals) process.on(name, first);
  });
}
