import { omitUndefined } from '@toolbus/spec';
import type { EgressLogger } from '../decision/egress-logger.ts';
import type { EgressIdentity } from '../decision/egress-request.ts';
import {
  defaultSandboxLabels,
  type IdentitySource,
  identityFromLabels,
  type SandboxLabels,
} from './identity-source.ts';
import { type IdentitySync, identitySourceLifecycle } from './identity-sync.ts';
import { openJsonStream } from './open-json-stream.ts';

/** Options for {@link createDockerEventsIdentitySource}. */
export interface DockerEventsIdentitySourceOptions {
  /** The Docker API: a Unix socket (`/var/run/docker.sock`) or a base URL (`http://127.0.0.1:2375`). */
  readonly socketPath?: string;
  readonly baseUrl?: string;
  /** The network whose address identifies a sandbox container. */
  readonly network: string;
  readonly labels?: SandboxLabels;
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  readonly logger?: EgressLogger;
  /** The clock, in seconds, for the events' `since` (injected by tests). */
  readonly nowSeconds?: () => number;
}

interface ContainerSummary {
  readonly Id?: string;
  /** Labels as the list endpoint gives them; the inspect endpoint has them under `Config`. */
  readonly Labels?: Record<string, string>;
  readonly Config?: { readonly Labels?: Record<string, string> };
  readonly NetworkSettings?: { readonly Networks?: Record<string, { readonly IPAddress?: string }> };
}

interface ContainerEvent {
  readonly Type?: string;
  readonly Action?: string;
  readonly Actor?: { readonly ID?: string };
}

/**
 * Source addresses of sandbox containers, from the Docker API: list the labelled containers, then stream
 * container events starting one second before the list, so nothing between the two is missed (a replayed event
 * is harmless). `start` adds or replaces a container's entry (dropping its old address after a restart); `die`,
 * `destroy` and `kill` remove it. Disconnects clear `synced` and reconnect with backoff, relisting.
 */
export function createDockerEventsIdentitySource(options: DockerEventsIdentitySourceOptions): IdentitySource {
  const labels = options.labels ?? defaultSandboxLabels;
  const base = options.baseUrl?.replace(/\/$/, '') ?? 'http://docker';
  const connection = omitUndefined({ socketPath: options.socketPath });
  const nowSeconds = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  const byContainer = new Map<string, { address: string; identity: EgressIdentity }>();
  const labelFilter = JSON.stringify({ label: [`${labels.managedBy}=${labels.managedByValue}`] });

  const record = (container: ContainerSummary): void => {
    const id = container.Id;
    if (id === undefined) return;
    byContainer.delete(id);
    const identity = identityFromLabels(container.Labels ?? container.Config?.Labels, labels);
    const address = container.NetworkSettings?.Networks?.[options.network]?.IPAddress;
    if (identity === undefined || address === undefined || address === '') return;
    // A restarted container can come back with a new address, and its old address may now be someone else's.
    for (const [other, entry] of byContainer) if (entry.address === address) byContainer.delete(other);
    byContainer.set(id, { address, identity });
  };

  async function get(path: string, signal: AbortSignal): Promise<unknown> {
    const stream = await openJsonStream({ url: `${base}${path}`, ...connection, signal });
    if (stream.status !== 200) {
      stream.close();
      throw new Error(`docker ${path.split('?')[0]} answered ${stream.status}`);
    }
    return stream.json();
  }

  async function session(sync: IdentitySync, signal: AbortSignal): Promise<void> {
    const since = nowSeconds() - 1;
    const containers = (await get(
      `/containers/json?filters=${encodeURIComponent(labelFilter)}`,
      signal,
    )) as ContainerSummary[];
    byContainer.clear();
    for (const container of containers) record(container);
    const eventFilter = JSON.stringify({
      type: ['container'],
      label: [`${labels.managedBy}=${labels.managedByValue}`],
    });
    const stream = await openJsonStream({
      url: `${base}/events?since=${since}&filters=${encodeURIComponent(eventFilter)}`,
      ...connection,
      signal,
    });
    if (stream.status !== 200) {
      stream.close();
      throw new Error(`docker events answered ${stream.status}`);
    }
    sync.markSynced();
    for await (const value of stream.values()) {
      const event = value as ContainerEvent;
      const id = event.Actor?.ID;
      if (event.Type !== 'container' || id === undefined) continue;
      if (event.Action === 'start') {
        record((await get(`/containers/${encodeURIComponent(id)}/json`, signal)) as ContainerSummary);
      } else if (event.Action === 'die' || event.Action === 'destroy' || event.Action === 'kill') {
        byContainer.delete(id);
      }
    }
    throw new Error('docker events stream ended');
  }

  return identitySourceLifecycle({
    source: 'docker',
    ...omitUndefined({ backoff: options.backoff, logger: options.logger }),
    connect: session,
    lookup: (address) => {
      for (const entry of byContainer.values()) if (entry.address === address) return entry.identity;
      return undefined;
    },
  });
}
