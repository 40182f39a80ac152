// The child processes of the server benches (the model, the servers, the relay, `toolbus serve` itself): each
// started with only PATH and the given environment, its stdout read line by line; started once it prints the line
// that names its URL, stopped with SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';

const here = new URL('.', import.meta.url).pathname;

/** A started child: its process, the URL it listens at, and its later stdout lines. */
export interface Child {
  readonly child: ChildProcess;
  readonly url: string;
  /** Receives every later line of the child's stdout. */
  onLine(listener: (line: string) => void): void;
}

/** What {@link startProcess} runs. */
export interface StartProcessOptions {
  /** For errors: which child this is. */
  readonly name: string;
  /** Node's arguments: its flags, the script, the script's arguments. */
  readonly args: readonly string[];
  /** The environment besides PATH. */
  readonly env: Readonly<Record<string, string>>;
  /** The stdout line that says the child is ready; its first group is the URL. */
  readonly ready: RegExp;
  /** Default `inherit`. */
  readonly stderr?: 'inherit' | 'ignore';
}

/** Starts a Node process and resolves once it prints its `ready` line. */
export function startProcess(options: StartProcessOptions): Promise<Child> {
  const child = spawn(process.execPath, options.args, {
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', 'pipe', options.stderr ?? 'inherit'],
  });
  let listener: (line: string) => void = () => {};
  return new Promise((resolve, reject) => {
    let buffer = '';
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += String(chunk);
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
        const match = options.ready.exec(line);
        if (match?.[1]) {
          resolve({
            child,
            url: match[1],
            onLine: (next) => {
              listener = next;
            },
          });
        } else {
          if (output.length < 10_000) output += `${line}\n`;
          listener(line);
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`${options.name} exited (${code}): ${output}`)));
  });
}

/** Starts `script` (a file next to this one) with the repo's conditions; ready when it prints "listening <url>". */
export function startChild(
  script: string,
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<Child> {
  return startProcess({
    name: script,
    args: ['--conditions=development', ...nodeArgs, `${here}${script}`],
    env,
    ready: /^listening (\S+)/,
  });
}

/** Stops a child with SIGTERM and waits for it to exit. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  return exited;
}
