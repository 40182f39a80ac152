// The child processes of the server benches (the model, the server, the relay): each started with the repo's
// conditions, its stdout read line by line; resolves once it prints "listening <url>".
import { type ChildProcess, spawn } from 'node:child_process';

const here = new URL('.', import.meta.url).pathname;

/** A started child: its process, the URL it listens at, and its later stdout lines. */
export interface Child {
  readonly child: ChildProcess;
  readonly url: string;
  /** Receives every later line of the child's stdout. */
  onLine(listener: (line: string) => void): void;
}

/** Starts `script` (a file next to this one) with only PATH and `env` in its environment. */
export function startChild(
  script: string,
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<Child> {
  const child = spawn(process.execPath, ['--conditions=development', ...nodeArgs, `${here}${script}`], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let listener: (line: string) => void = () => {};
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += String(chunk);
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
        const match = /^listening (\S+)/.exec(line);
        if (match?.[1]) {
          resolve({
            child,
            url: match[1],
            onLine: (next) => {
              listener = next;
            },
          });
        } else listener(line);
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code})`)));
  });
}
