import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Options of {@link startTestPostgres}. */
export interface StartTestPostgresOptions {
  /**
   * Keep PostgreSQL's crash safety (fsync at checkpoints; commits still do not wait for the disk, like the SQLite
   * store's WAL with `synchronous = NORMAL`): for benchmarks. Tests default to `false`, no fsync at all.
   */
  readonly durable?: boolean;
  /** The directory with `initdb` and `postgres` (default: the newest `/usr/lib/postgresql/<version>/bin`). */
  readonly binDirectory?: string;
}

/** A throwaway PostgreSQL cluster on loopback, owned by the test that started it. */
export interface TestPostgres {
  /** `127.0.0.1:<port>` the server listens on. */
  readonly address: string;
  /** A connection URL to the `postgres` maintenance database (superuser, with password). */
  readonly adminUrl: string;
  /** The cluster's data directory (owned by the `postgres` user under root): what a copy of the disk holds. */
  readonly dataDirectory: string;
  /** The directory of the cluster's programs (`pg_dump`, `pg_restore`, …). */
  readonly binDirectory: string;
  /** Creates an empty database (a copy of `template` when given) and returns its connection URL. */
  createDatabase(options?: { readonly template?: string }): Promise<string>;
  /** The database name of a URL this cluster returned. */
  databaseName(url: string): string;
  /**
   * Takes the server away for `downMs` (a fast shutdown: open sessions end mid-query) and starts it again on the
   * same port and data: PostgreSQL restarting under a running deployment.
   */
  restart(options: { readonly downMs: number }): Promise<void>;
  /** Stops the server (fast shutdown) and removes its data directory. */
  stop(): Promise<void>;
}

const user = 'toolbus';

/**
 * Starts a private PostgreSQL cluster for tests and benchmarks: `initdb` into a temporary directory, then
 * `postgres` on 127.0.0.1 at a free port, never the system service. PostgreSQL refuses to run as root, so under
 * root both run as the `postgres` system user (setpriv, no intermediate process: the pid is the server's).
 * Password authentication is on, so tests see the same URLs a deployment uses.
 */
export async function startTestPostgres(options: StartTestPostgresOptions = {}): Promise<TestPostgres> {
  const bin = options.binDirectory ?? findBinDirectory();
  const root = mkdtempSync(join(tmpdir(), 'toolbus-pg-'));
  const dataDirectory = join(root, 'data');
  const socketDirectory = join(root, 'socket');
  mkdirSync(socketDirectory);
  const password = randomBytes(12).toString('base64url');
  writeFileSync(join(root, 'password'), password, { mode: 0o600 });
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? systemUser('postgres') : undefined;
  if (owner) {
    for (const path of [root, socketDirectory, join(root, 'password')]) chownSync(path, owner.uid, owner.gid);
  }
  const command = (program: string, args: readonly string[]): [string, string[]] =>
    owner
      ? [
          'setpriv',
          [
            `--reuid=${owner.uid}`,
            `--regid=${owner.gid}`,
            '--init-groups',
            '--',
            join(bin, program),
            ...args,
          ],
        ]
      : [join(bin, program), [...args]];
  try {
    const [initdb, initdbArgs] = command('initdb', [
      '-D',
      dataDirectory,
      '-U',
      user,
      `--pwfile=${join(root, 'password')}`,
      '--auth=scram-sha-256',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
      '--no-instructions',
    ]);
    execFileSync(initdb, initdbArgs, { stdio: 'pipe' });
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`initdb failed: ${describeExecError(error)}`);
  }
  const port = await freePort();
  const settings = options.durable
    ? ['-c', 'synchronous_commit=off']
    : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
  const [postgres, postgresArgs] = command('postgres', [
    '-D',
    dataDirectory,
    '-p',
    String(port),
    '-h',
    '127.0.0.1',
    '-k',
    socketDirectory,
    '-c',
    'max_connections=200',
    ...settings,
  ]);
  let log = '';
  const launch = () => {
    const child = spawn(postgres, postgresArgs, { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      log = (log + chunk).slice(-4000);
    });
    return child;
  };
  let server = launch();
  // A test runner that exits without `stop()` must not leave a server behind.
  const killOnExit = () => server.kill('SIGKILL');
  process.once('exit', killOnExit);
  const address = `127.0.0.1:${port}`;
  const urlOf = (database: string) =>
    `postgres://${user}:${encodeURIComponent(password)}@${address}/${encodeURIComponent(database)}`;
  const adminUrl = urlOf('postgres');
  const stop = async () => {
    process.off('exit', killOnExit);
    await stopServer(server);
    rmSync(root, { recursive: true, force: true });
  };
  try {
    await waitUntilReady(adminUrl, server, () => log);
  } catch (error) {
    await stop();
    throw error;
  }
  let counter = 0;
  return {
    address,
    adminUrl,
    dataDirectory,
    binDirectory: bin,
    async createDatabase(createOptions = {}) {
      counter += 1;
      const name = `test_${process.pid}_${counter}`;
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        // Identifiers cannot be parameters; both names are made here or checked to be plain identifiers.
        const template = createOptions.template;
        if (template !== undefined && !/^[a-z_][a-z0-9_]*$/.test(template)) {
          throw new Error(`Not a plain database name: ${template}`);
        }
        await client.query(
          template === undefined
            ? `CREATE DATABASE ${name}`
            : `CREATE DATABASE ${name} TEMPLATE ${template} STRATEGY FILE_COPY`,
        );
      } finally {
        await client.end();
      }
      return urlOf(name);
    },
    databaseName(url) {
      return decodeURIComponent(new URL(url).pathname.slice(1));
    },
    async restart({ downMs }) {
      await stopServer(server);
      await new Promise((resolve) => setTimeout(resolve, downMs));
      server = launch();
      await waitUntilReady(adminUrl, server, () => log);
    },
    stop,
  };
}

function findBinDirectory(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((entry) => /^\d+$/.test(entry) && existsSync(join(base, entry, 'bin', 'postgres')))
        .sort((left, right) => Number(right) - Number(left))
    : [];
  if (versions[0] === undefined) {
    throw new Error(
      'PostgreSQL is not installed (no /usr/lib/postgresql/<version>/bin/postgres): run scripts/setup.sh, which installs Debian’s postgresql package.',
    );
  }
  return join(base, versions[0], 'bin');
}

function systemUser(name: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

async function waitUntilReady(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null || server.signalCode !== null) {
      throw new Error(`postgres exited during start-up: ${log()}`);
    }
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > deadline)
        throw new Error(`postgres did not accept connections in 30 s: ${log()}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => server.kill('SIGKILL'), 10_000);
    server.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    // SIGINT is PostgreSQL's fast shutdown: open sessions are ended, nothing is waited for.
    server.kill('SIGINT');
  });
}

function describeExecError(error: unknown): string {
  const stderr = (error as { stderr?: Buffer }).stderr?.toString('utf8').trim();
  return stderr || (error instanceof Error ? error.message : String(error));
}
