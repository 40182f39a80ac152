import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.ts';
import { killStartedClis, type RunningCli, startCli } from '../__fixtures__/spawn-cli.ts';

const sandboxId = '55555555-5555-4555-8555-555555555555';
let home: string;
const servers: Server[] = [];
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

/** The flags of a service on loopback (free ports) that reads its containers from the fake Docker at `port`. */
function onFakeDocker(port: number): string[] {
  return [
    '--docker-url',
    `http://127.0.0.1:${port}`,
    '--docker-network',
    'sandboxes',
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--health-port',
    '0',
  ];
}

/** `toolbus egress serve` with `args`, in a child process with only the test's home. */
function serve(args: readonly string[]): RunningCli {
  return startCli(['egress', 'serve', ...args], { TOOLBUS_HOME: home });
}

before(async () => {
  home = await mkdtemp(join(tmpdir(), 'toolbus-egress-serve-'));
});
after(async () => {
  // A failed test must not leave its service running (the runner would wait for it forever).
  killStartedClis();
  for (const stream of streams) stream.end();
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await rm(home, { recursive: true, force: true });
});

describe('toolbus egress serve', () => {
  // Generous: starting the CLI from source on a loaded machine can take tens of seconds.
  it('identifies containers by address, injects a shared app credential, and drains on SIGTERM', {
    timeout: 120_000,
  }, async () => {
    const seen: Array<string | undefined> = [];
    const upstreamPort = await listen(
      createServer((incoming, response) => {
        seen.push(incoming.headers['x-api-key'] as string | undefined);
        response.end('ok');
      }),
    );
    const added = await runCliInProcess(
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
      { env: { TOOLBUS_HOME: home, HOME: home, KEY: 'SERVE-SECRET-1' }, cwd: home },
    );
    assert.equal(added.code, 0, added.stderr);
    const dockerPort = await listen(fakeDocker(200));
    const service = serve([...onFakeDocker(dockerPort), '--allow', '127.0.0.1/32']);
    const port = Number(await service.waitForMatch(/listening on port (\d+)/));
    const healthPort = Number(/health on (\d+)/.exec(service.output().stdout)?.[1]);
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
    assert.equal(await service.exited, 0, service.output().stderr);
    assert.match(service.output().stdout, /drained/);
    assert.ok(!service.output().stderr.includes('SERVE-SECRET-1'));
  });

  it('exits with status 1 when the identity source does not sync in time', async () => {
    const dockerPort = await listen(fakeDocker(500));
    const service = serve([...onFakeDocker(dockerPort), '--sync-timeout-ms', '300']);
    assert.equal(await service.exited, 1);
    assert.match(service.output().stderr, /did not sync within/);
  });
});
