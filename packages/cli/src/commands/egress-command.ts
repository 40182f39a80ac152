import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatEgressLogLine } from '@toolbus/egress';
import type { IdentitySource } from '@toolbus/egress/node';
import type { EgressApprovals } from '@toolbus/redis';
import { storageEgressCatalogue, storageEgressSessions } from '@toolbus/server';
import { omitUndefined } from '@toolbus/spec';
import { loadCliConfig } from '../cli-config.ts';
import { egressSecretKey } from '../egress-secret-key.ts';
import { EXIT_CODES } from '../exit-codes.ts';
import { openWorkspace } from '../open-workspace.ts';
import { UsageError } from '../usage-error.ts';
import { actionCommand, defineAction } from './action-command.ts';

const egressUsage = `Usage: toolbus egress serve (--kubernetes-namespace NS | --docker-network NET) [options]

Runs the egress proxy as its own service for sandboxes in pods or containers: a sandbox is identified by its
source address (a Kubernetes pod informer, or Docker's events), and the proxy refuses traffic until that source
has synced; when it does not sync within --sync-timeout-ms (60 s), the command exits with status 1. A connection
relayed by an interpreter service (toolbus-interpreter --egress-proxy) is identified by its run's signed egress
token instead (verified with a key derived from the secret key; forged or expired tokens get a 407).
With redis.url configured (the replicas' Redis), an ASK action becomes an approval card in the chat whose turn
runs the code; without it, ASK actions are refused.

  --port N                proxy port (8080)          --health-port N   /healthz port (8081)
  --host ADDRESS          listen address (0.0.0.0)
  --kubernetes-namespace  the sandboxes' namespace; --kubernetes-api URL (in-cluster default), token and CA from
                          the pod's service account
  --docker-network NET    the sandboxes' network; --docker-socket PATH (/var/run/docker.sock) or --docker-url URL
  --upstream-ca FILE      an extra CA bundle trusted for upstream servers
  --allow CIDR|HOST       exempt an internal network or host from the destination check (repeatable; on-premise)
  --sync-timeout-ms N     how long to wait for the identity source (60000)
`;

const serviceAccount = '/var/run/secrets/kubernetes.io/serviceaccount';

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** `toolbus egress serve`: the egress proxy as a service, with connected apps from the toolbus database. */
const serveEgress = defineAction({
  name: 'serve',
  forms: ['(--kubernetes-namespace NS | --docker-network NET) [options]'],
  summary:
    'Runs the egress proxy as a service for sandboxes in pods or containers, identified by source address; traffic is refused until the identity source has synced.',
  flags: [
    { name: 'port', value: 'N', description: 'proxy port (8080)' },
    { name: 'health-port', value: 'N', description: '/healthz port (8081)' },
    { name: 'host', value: 'ADDRESS', description: 'listen address (0.0.0.0)' },
    { name: 'kubernetes-namespace', value: 'NS', description: "the sandboxes' namespace" },
    { name: 'kubernetes-api', value: 'URL', description: 'the Kubernetes API (in-cluster default)' },
    { name: 'docker-network', value: 'NET', description: "the sandboxes' Docker network" },
    { name: 'docker-socket', value: 'PATH', description: 'the Docker socket (/var/run/docker.sock)' },
    { name: 'docker-url', value: 'URL', description: 'the Docker API over HTTP instead of the socket' },
    { name: 'upstream-ca', value: 'FILE', description: 'an extra CA bundle trusted for upstream servers' },
    {
      name: 'sync-timeout-ms',
      value: 'N',
      description: 'how long to wait for the identity source (60000)',
    },
    {
      name: 'allow',
      value: 'CIDR|HOST',
      repeatable: true,
      description: 'exempt an internal network or host from the destination check (repeatable)',
    },
  ],
  examples: [
    'toolbus egress serve --kubernetes-namespace sandboxes',
    'toolbus egress serve --docker-network toolbus-sandboxes --port 3128',
  ],
  async run({ values, io }) {
    // Loaded by this command only: every other command (`toolbus serve` among them) starts without the proxy's code.
    const {
      createDockerEventsIdentitySource,
      createKubernetesPodIdentitySource,
      deriveEgressTokenKey,
      drainOnSignals,
      startEgressService,
    } = await import('@toolbus/egress/node');
    const log = (
      event: string,
      fields: ReadonlyArray<readonly [string, string | number | boolean | undefined]>,
    ) => io.stderr.write(`${formatEgressLogLine(event, fields)}\n`);
    let identitySource: IdentitySource;
    if (values['kubernetes-namespace'] !== undefined) {
      const host = io.env.KUBERNETES_SERVICE_HOST;
      const apiUrl =
        values['kubernetes-api'] ??
        (host === undefined ? undefined : `https://${host}:${io.env.KUBERNETES_SERVICE_PORT ?? '443'}`);
      if (apiUrl === undefined) {
        throw new UsageError({
          message: 'give --kubernetes-api (not running in a cluster).',
          usage: egressUsage,
        });
      }
      const token = readOptional(join(serviceAccount, 'token'));
      const ca = readOptional(join(serviceAccount, 'ca.crt'));
      identitySource = createKubernetesPodIdentitySource({
        apiUrl,
        namespace: values['kubernetes-namespace'],
        ...omitUndefined({ token, ca }),
        logger: log,
      });
    } else if (values['docker-network'] !== undefined) {
      identitySource = createDockerEventsIdentitySource({
        network: values['docker-network'],
        ...(values['docker-url'] === undefined
          ? { socketPath: values['docker-socket'] ?? '/var/run/docker.sock' }
          : { baseUrl: values['docker-url'] }),
        logger: log,
      });
    } else {
      throw new UsageError({
        message: 'choose --kubernetes-namespace or --docker-network.',
        usage: egressUsage,
      });
    }
    const config = loadCliConfig({ env: io.env });
    const workspace = await openWorkspace(config);
    // ASK actions are asked of the replica running the chat's turn, through the replicas' Redis; without it nobody
    // could see the card, so they are refused at once (and the log says why).
    const redisUrl = io.env.TOOLBUS_REDIS_URL || config.file.redis?.url;
    let approvals: EgressApprovals | undefined;
    try {
      approvals =
        redisUrl === undefined
          ? undefined
          : await (await import('@toolbus/redis')).connectEgressApprovals({
              url: redisUrl,
              onError: (error) => log('egress_approvals_redis_error', [['error', errorName(error)]]),
            });
      log('egress_approvals', [['broker', approvals === undefined ? 'none_without_redis_url' : 'redis']]);
      const service = await startEgressService({
        identitySource,
        caDirectory: join(config.home, 'egress-ca'),
        host: values.host ?? '0.0.0.0',
        port: Number(values.port ?? 8080),
        healthPort: Number(values['health-port'] ?? 8081),
        syncTimeoutMs: Number(values['sync-timeout-ms'] ?? 60_000),
        // Interpreter pods relay each run with its signed token: the key is the one the server signs with.
        runTokens: { key: deriveEgressTokenKey(egressSecretKey(config, io.env)) },
        ...(values['upstream-ca'] === undefined
          ? {}
          : { upstreamTrustedCa: [readFileSync(values['upstream-ca'], 'utf8')] }),
        context: {
          resolveHost: async (name) =>
            (await lookup(name, { all: true, verbatim: true })).map((entry) => entry.address),
          addressPolicy: { level: 'strict', allow: values.allow ?? [] },
          ...storageEgressCatalogue(workspace.storage),
          // A session (a chat) is asked in only when it is the sandbox's user's: labelled, tokened or tagged in-band.
          ...storageEgressSessions(workspace.storage),
          ...omitUndefined({ approvalBroker: approvals?.broker }),
          logger: log,
        },
        onHealthListening: (port) => io.stderr.write(`event=egress_health_listening port=${port}\n`),
      });
      io.stdout.write(`egress proxy listening on port ${service.port} (health on ${service.healthPort})\n`);
      await new Promise<void>((resolve) => {
        drainOnSignals(service, () => resolve());
      });
      io.stdout.write('egress proxy drained\n');
      return EXIT_CODES.ok;
    } finally {
      await approvals?.close();
      await workspace.close();
    }
  },
});

/** `toolbus egress`: its one action is `serve`. */
export const egressCommand = actionCommand({
  name: 'egress',
  synopsis: 'egress serve ...         the egress proxy as a service (pods or containers as sandboxes)',
  usage: egressUsage,
  actions: [serveEgress],
});

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'unknown';
}
