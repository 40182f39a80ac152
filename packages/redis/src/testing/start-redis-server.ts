// A throwaway redis-server (Debian's binary) for tests: loopback only, a temporary directory, no persistence.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '@toolbus/core/testing';

/** A running {@link startRedisServer}. */
export interface TestRedisServer {
  /** `redis://127.0.0.1:PORT`. */
  readonly url: string;
  readonly port: number;
  /** The server process (tests may kill it to see a connection fail). */
  readonly process: ChildProcess;
  /** Stops the server and deletes its directory. */
  stop(): Promise<void>;
}

/** Options for {@link startRedisServer}. */
export interface StartRedisServerOptions {
  /** The binary (default `redis-server` on the PATH, which `scripts/setup.sh` installs from Debian). */
  readonly binary?: string;
  /** How long to wait for it to answer PING (default 10 s). */
  readonly readyTimeoutMs?: number;
}

/**
 * Starts `redis-server` on a free loopback port with a temporary working directory, without RDB snapshots or an
 * append-only file, and waits until it answers. The caller stops it (tests in an `after` hook).
 */
export async function startRedisServer(options: StartRedisServerOptions = {}): Promise<TestRedisServer> {
  const directory = await mkdtemp(join(tmpdir(), 'toolbus-redis-'));
  let lastError: unknown;
  // The free port can be taken between the probe and the bind: try a few.
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const port = await freeLoopbackPort();
    const child = spawn(
      options.binary ?? 'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        directory,
        '--save',
        '',
        '--appendonly',
        'no',
        '--protected-mode',
        'yes',
        '--daemonize',
        'no',
        '--loglevel',
        'warning',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitForPing(port, options.readyTimeoutMs ?? 10_000, exited);
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        process: child,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill('SIGTERM');
            const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
            await exited;
            clearTimeout(timer);
          }
          await rm(directory, { recursive: true, force: true });
        },
      };
    } catch (error) {
      lastError = new Error(
        `redis-server did not start: ${error instanceof Error ? error.message : error} ${stderr}`,
      );
      child.kill('SIGKILL');
      await exited;
    }
  }
  await rm(directory, { recursive: true, force: true });
  throw lastError;
}

async function waitForPing(port: number, timeoutMs: number, exited: Promise<number | null>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  while (Date.now() < deadline) {
    if (gone) throw new Error('the process exited');
    if (await ping(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no answer on port ${port} within ${timeoutMs} ms`);
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    socket.setTimeout(1_000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.includes('\r\n')) {
        socket.destroy();
        resolve(answer.startsWith('+PONG'));
      }
    });
  });
}
