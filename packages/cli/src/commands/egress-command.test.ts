import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CliIo } from '../cli-io.ts';
import { runCli } from '../main.ts';

const entry = new URL('../cli-entry.ts', import.meta.url).pathname;
const sandboxId = '55555555-5555-4555-8555-555555555555';
let home: string;
const servers: Server[] = [];
const children: ChildProcess[] = [];
const streams: ServerResponse[] = [];

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** The Docker Engine API's list and events endpoints, with one sandbox container at 127.0.0.1. */
function fakeDocker(eventsStatus: number): Server {
  return createServer((incoming, response) => {
    const url = new URL(incoming.url ?? '/', 'http://x');
    response.setHeader('content-type', 'application/json');
    if (url.pathname === '/containers/json') {
      response.end(
        JSON.stringify([
          {
            Id: 'c1',
            Labels: {
              'app.kubernetes.io/managed-by': 'toolbus',
              'toolbus.dev/sandbox-id': sandboxId,
              'toolbus.dev/user-id': 'someone',
            },
            NetworkSettings: { Networks: { sandboxes: { IPAddress: '127.0.0.1' } } },
          },
        ]),
      );
      return;
    }
    if (url.pathname === '/events' && eventsStatus === 200) {
      response.writeHead(200);
      response.flushHeaders();
      streams.push(response);
      return;
    }
    response.writeHead(500).end('{}');
  });
}

function serve(args: readonly string[]): { child: ChildProcess; stdout: () => string; stderr: () => string } {
  const child = spawn(process.execPath, ['--conditions=development', entry, 'egress', 'serve', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: home, TOOLBUS_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return { child, stdout: () => stdout, stderr: () => stderr };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    // Generous: starting the CLI from source on a loaded machine can take tens of seconds.
    if (Date.now() - started > 90_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

before(async () => {
  home = await mkdtemp(join(tmpdir(), 'toolbus-egress-serve-'));
});
after(async () => {
  // A failed test must not leave its service running (the runner would wait for it forever).
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const stream of streams) stream.end();
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await rm(home, { recursive: true, force: true });
});

describe('toolbus egress serve', () => {
  it('identifies containers by address, injects a shared app credential, and drains on SIGTERM', async () => {
    const seen: Array<string | undefined> = [];
    const upstreamPort = await listen(
      createServer((incoming, response) => {
        seen.push(incoming.headers['x-api-key'] as string | undefined);
        response.end('ok');
      }),
    );
    const io: CliIo = {
      stdout: { write: () => true },
      stderr: { write: () => true },
      env: { TOOLBUS_HOME: home, HOME: home, KEY: 'SERVE-SECRET-1' },
      cwd: home,
    };
    assert.equal(
      await runCli(
        [
          'apps',
          'add',
          'local',
          '--shared',
          '--url',
          'http://127\\.0\\.0\\.1:\\d+/.*',
          '--header',
          'X-Api-Key: {{org.key}}',
          '--value-env',
          'key=KEY',
          '--policy',
          'ALWAYS',
        ],
        io,
      ),
      0,
    );
    const dockerPort = await listen(fakeDocker(200));
    const service = serve([
      '--docker-url',
      `http://127.0.0.1:${dockerPort}`,
      '--docker-network',
      'sandboxes',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--health-port',
      '0',
      '--allow',
      '127.0.0.1/32',
    ]);
    await until(() => /listening on port \d+/.test(service.stdout()), 'the service');
    const port = Number(/listening on port (\d+)/.exec(service.stdout())?.[1]);
    const healthPort = Number(/health on (\d+)/.exec(service.stdout())?.[1]);
    assert.equal((await fetch(`http://127.0.0.1:${healthPort}/healthz`)).status, 200);
    const status = await new Promise<number>((resolve, reject) => {
      const proxied = request(
        {
          host: '127.0.0.1',
          port,
          path: `http://127.0.0.1:${upstreamPort}/data`,
          headers: { host: `127.0.0.1:${upstreamPort}` },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      proxied.on('error', reject);
      proxied.end();
    });
    assert.equal(status, 200);
    assert.deepEqual(seen, ['SERVE-SECRET-1']);
    service.child.kill('SIGTERM');
    const [code] = (await once(service.child, 'exit')) as [number];
    assert.equal(code, 0, service.stderr());
    assert.match(service.stdout(), /drained/);
    assert.ok(!service.stderr().includes('SERVE-SECRET-1'));
  });

  it('exits with status 1 when the identity source does not sync in time', async () => {
    const dockerPort = await listen(fakeDocker(500));
    const service = serve([
      '--docker-url',
      `http://127.0.0.1:${dockerPort}`,
      '--docker-network',
      'sandboxes',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--health-port',
      '0',
      '--sync-timeout-ms',
      '300',
    ]);
    const [code] = (await once(service.child, 'exit')) as [number];
    assert.equal(code, 1);
    assert.match(service.stderr(), /did not sync within/);
  });
});
