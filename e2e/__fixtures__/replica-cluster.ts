// Three `toolbus serve` processes behind HAProxy (Debian's), sharing one Redis and one storage: the cluster the
// scale-out test and benchmark drive. Everything listens on loopback; HAProxy's config is written to a temp dir.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '@toolbus/core/testing';
import { type InterpreterServer, startInterpreterServer } from '@toolbus/interpreter';

const cliEntry = new URL('../../packages/cli/src/cli-entry.ts', import.meta.url).pathname;

/** One `toolbus serve` process. */
export interface Replica {
  readonly name: string;
  readonly port: number;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  /** What it wrote to stderr (its JSON log). */
  log(): string;
}

/** Options for {@link startReplicaCluster}. */
export interface ReplicaClusterOptions {
  readonly redisUrl: string;
  /** The model string every replica uses (the scripted model server). */
  readonly model: string;
  /** How many replicas (default 3). */
  readonly replicas?: number;
  /**
   * Settings merged into the shared config file, for the storage every replica uses. Empty: the SQLite file in
   * the shared toolbus home (WAL mode, which several processes on one machine share). A PostgreSQL `storage.url`
   * without password goes here; a URL with its password goes in {@link ReplicaClusterOptions.environment}.
   */
  readonly storageConfig?: Readonly<Record<string, unknown>>;
  /**
   * Variables every replica gets on top of the fixed ones: `TOOLBUS_STORAGE_URL` (a URL with its password, which
   * the config file refuses) and the `TOOLBUS_SECRET_KEY` every replica on one PostgreSQL must share.
   */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * Hold and stalled-check timing of the turn queue, short so a dead replica's turns are taken over quickly (3 s
   * when absent); `'default'` leaves `toolbus serve`'s own defaults (what the takeover benchmark measures).
   */
  readonly turnLockMs?: number | 'default';
  /**
   * The sandbox service every replica's run_python uses (`sandboxUrl` in the config), as a deployment runs its
   * interpreter services apart from the API. Default: one the cluster starts and stops. Without one, each turn
   * would start its own in-process service, whose start-up isolation probe (Python importing numpy, pandas and
   * matplotlib in bubblewrap) costs about half a second of CPU per turn.
   */
  readonly sandboxUrl?: string;
}

/** A running cluster. */
export interface ReplicaCluster {
  /** HAProxy's address: what clients use. */
  readonly url: string;
  readonly replicas: readonly Replica[];
  /** HAProxy's process. */
  readonly proxy: ChildProcess;
  /** Stops everything and deletes the temporary directories. */
  stop(): Promise<void>;
}

/** Starts the replicas (the first alone, so it creates the database), then HAProxy in front of them. */
export async function startReplicaCluster(options: ReplicaClusterOptions): Promise<ReplicaCluster> {
  // What has started, stopped again when the cluster fails to come up: a replica or a sandbox left running would keep
  // the test file's process alive after its tests failed, and the whole run would wait for it.
  const started: ChildProcess[] = [];
  const directories: string[] = [];
  const sandbox = options.sandboxUrl === undefined ? await startInterpreterServer({ port: 0 }) : undefined;
  try {
    return await startEverything(options, sandbox, started, directories);
  } catch (error) {
    for (const child of started) child.kill('SIGKILL');
    await sandbox?.close();
    await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
    throw error;
  }
}

/** The cluster on `sandbox` (the one it started, if any), recording each process and folder as it starts it. */
async function startEverything(
  options: ReplicaClusterOptions,
  sandbox: InterpreterServer | undefined,
  started: ChildProcess[],
  directories: string[],
): Promise<ReplicaCluster> {
  const home = await mkdtemp(join(tmpdir(), 'toolbus-replicas-'));
  directories.push(home);
  const sandboxUrl = options.sandboxUrl ?? (sandbox as InterpreterServer).url;
  await writeFile(
    join(home, 'config.json'),
    JSON.stringify({ redis: { url: options.redisUrl }, sandboxUrl, ...options.storageConfig }),
    { mode: 0o600 },
  );
  const count = options.replicas ?? 3;
  const lockMs = options.turnLockMs ?? 3_000;
  const start = async (index: number): Promise<Replica> => {
    const port = await freeLoopbackPort();
    const child = spawn(
      process.execPath,
      [
        '--conditions=development',
        cliEntry,
        'serve',
        '--port',
        String(port),
        '--turns-per-user',
        '1000',
        '--requests-per-minute',
        '100000',
      ],
      {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          TOOLBUS_HOME: home,
          TOOLBUS_MODEL: options.model,
          ...(lockMs === 'default'
            ? {}
            : {
                TOOLBUS_TURN_LOCK_MS: String(lockMs),
                TOOLBUS_STALLED_CHECK_MS: String(Math.max(250, Math.floor(lockMs / 3))),
                TOOLBUS_SLOT_TTL_MS: String(lockMs),
              }),
          ...options.environment,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    started.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (/serving on /.test(stdout)) resolve();
      };
      child.stdout?.on('data', check);
      void exited.then((code) => reject(new Error(`replica ${index} exited (${code}): ${stderr}`)));
    });
    return { name: `replica${index + 1}`, port, child, exited, log: () => stderr };
  };
  const replicas: Replica[] = [await start(0)];
  replicas.push(...(await Promise.all(Array.from({ length: count - 1 }, (_, index) => start(index + 1)))));

  const proxyPort = await freeLoopbackPort();
  const proxyDir = await mkdtemp(join(tmpdir(), 'toolbus-haproxy-'));
  directories.push(proxyDir);
  const config = [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 120s',
    '  timeout server 120s',
    // Longer than the clients keep an idle connection (undici: 4 s, later when its event loop is busy): HAProxy
    // never closes one a client is about to reuse, which fails a POST that cannot be retried.
    '  timeout http-keep-alive 60s',
    '  timeout check 3s',
    '  option redispatch',
    '  retries 3',
    'frontend api',
    `  bind 127.0.0.1:${proxyPort}`,
    '  default_backend replicas',
    'backend replicas',
    '  balance roundrobin',
    '  option httpchk GET /health',
    '  http-check expect status 200',
    // Which replica served a response: the test kills one that is streaming to clients.
    '  http-response set-header x-replica %s',
    ...replicas.map(
      (replica) => `  server ${replica.name} 127.0.0.1:${replica.port} check inter 500ms fall 3 rise 1`,
    ),
    '',
  ].join('\n');
  const configPath = join(proxyDir, 'haproxy.cfg');
  await writeFile(configPath, config);
  const proxy = spawn('haproxy', ['-db', '-f', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  started.push(proxy);
  let proxyLog = '';
  proxy.stderr?.on('data', (chunk) => {
    proxyLog += chunk;
  });
  const url = `http://127.0.0.1:${proxyPort}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const healthy = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline || proxy.exitCode !== null) throw new Error(`HAProxy did not come up: ${proxyLog}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    replicas,
    proxy,
    async stop() {
      proxy.kill('SIGKILL');
      await Promise.all(
        replicas.map(async (replica) => {
          if (replica.child.exitCode === null && replica.child.signalCode === null) {
            replica.child.kill('SIGTERM');
            const timer = setTimeout(() => replica.child.kill('SIGKILL'), 10_000);
            await replica.exited;
            clearTimeout(timer);
          }
        }),
      );
      await sandbox?.close();
      await rm(home, { recursive: true, force: true });
      await rm(proxyDir, { recursive: true, force: true });
    },
  };
}

/**
 * `fetch` that retries while the balancer answers 503 (no replica up for a moment: a busy machine can miss a
 * health check), for up to `timeoutMs` (default 60 s). A 503 from HAProxy never reached a replica, so repeating
 * the request is safe.
 */
export async function fetchThroughBalancer(
  url: string,
  init?: RequestInit,
  timeoutMs = 60_000,
): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  // A read may meet a kept-alive connection the balancer closed as its replica died ("other side closed"): it is
  // sent again. A write is not (it may have been applied), so its failure reaches the test.
  const idempotent = (init?.method ?? 'GET').toUpperCase() === 'GET';
  for (;;) {
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (error) {
      if (!idempotent || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    if (response.status !== 503 || response.headers.get('x-replica') || Date.now() > deadline) return response;
    await response.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
