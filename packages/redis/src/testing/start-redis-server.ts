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
  /** The server process (tests may kill it to see a connection fail); a new one after {@link restart}. */
  readonly process: ChildProcess;
  /**
   * Takes the server away for `downMs` and starts it again on the same port: an outage as an operator's restart
   * makes it. With `keepData` it saves a snapshot on the way down and loads it back (a `systemctl restart` of
   * Debian's redis-server, whose default configuration saves at shutdown); without, it is killed and comes back
   * empty (a crash of a server without persistence).
   */
  restart(options: { readonly downMs: number; readonly keepData: boolean }): Promise<void>;
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
    try {
      let running = await spawnRedis(options, port, directory);
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        get process() {
          return running.child;
        },
        async restart({ downMs, keepData }) {
          if (keepData) await command(port, 'SHUTDOWN SAVE');
          await running.kill();
          await new Promise((resolve) => setTimeout(resolve, downMs));
          running = await spawnRedis(options, port, directory);
        },
        async stop() {
          await running.kill();
          await rm(directory, { recursive: true, force: true });
        },
      };
    } catch (error) {
      lastError = error;
    }
  }
  await rm(directory, { recursive: true, force: true });
  throw lastError;
}

interface RunningRedis {
  readonly child: ChildProcess;
  /** Stops the process (SIGTERM, then SIGKILL after 5 s) unless it exited already. */
  kill(): Promise<void>;
}

/** Starts redis-server on `port` with `directory` as its working directory (a snapshot there is loaded). */
async function spawnRedis(
  options: StartRedisServerOptions,
  port: number,
  directory: string,
): Promise<RunningRedis> {
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
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
  };
  try {
    await waitForPing(port, options.readyTimeoutMs ?? 10_000, exited);
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw new Error(
      `redis-server did not start: ${error instanceof Error ? error.message : error} ${stderr}`,
    );
  }
  return { child, kill };
}

/** Sends one inline command and waits until the server answers or closes the connection. */
function command(port: number, text: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(5_000, () => socket.destroy());
    socket.once('error', () => resolve());
    socket.once('close', () => resolve());
    socket.on('connect', () => socket.write(`${text}\r\n`));
    socket.on('data', () => socket.end());
  });
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
