import { omitUndefined } from '@toolbus/spec';
import type { EgressLogger } from '../decision/egress-logger.ts';
import { EgressProxyError } from './egress-proxy-error.ts';
import { defaultSandboxLabels, type IdentitySource, type SandboxLabels } from './identity-source.ts';
import { type IdentitySync, identitySourceLifecycle } from './identity-sync.ts';
import {
  type KubernetesPodsEndpoint,
  listPods,
  openPodWatch,
  type Pod,
  type PodIdentity,
  PodWatchGoneError,
  sandboxPodEntry,
} from './kubernetes-pods-api.ts';

/** Options for {@link createKubernetesPodIdentitySource}. */
export interface KubernetesPodIdentitySourceOptions {
  /** The API server (`https://kubernetes.default.svc`). */
  readonly apiUrl: string;
  readonly namespace: string;
  /** The service account token, sent as a bearer token. */
  readonly token?: string;
  /** The API server's CA (PEM). */
  readonly ca?: string;
  /** Which pods are sandboxes; `app.kubernetes.io/component=sandbox,<managed-by>=toolbus` when absent. */
  readonly labelSelector?: string;
  readonly labels?: SandboxLabels;
  /** Server-side watch timeout; 300 s. */
  readonly watchTimeoutSeconds?: number;
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  readonly logger?: EgressLogger;
}

/**
 * Source addresses of sandbox pods, from the Kubernetes API: a list, then a watch from the list's
 * resourceVersion. A watch that ends (server timeout, network) reconnects with backoff from the last version
 * seen; `410 Gone` (the version is too old) relists. Every disconnect clears `synced` until the next successful
 * list or watch start, so the proxy answers 503 meanwhile. Two sandboxes on one address at the first sync is a
 * hard failure: the proxy must not guess which is which.
 */
export function createKubernetesPodIdentitySource(
  options: KubernetesPodIdentitySourceOptions,
): IdentitySource {
  const labels = options.labels ?? defaultSandboxLabels;
  const selector =
    options.labelSelector ??
    `app.kubernetes.io/component=sandbox,${labels.managedBy}=${labels.managedByValue}`;
  const endpoint: KubernetesPodsEndpoint = {
    base: `${options.apiUrl.replace(/\/$/, '')}/api/v1/namespaces/${encodeURIComponent(options.namespace)}/pods`,
    selector,
    headers: options.token === undefined ? {} : { authorization: `Bearer ${options.token}` },
    ...omitUndefined({ ca: options.ca }),
  };
  const log = options.logger ?? (() => {});
  let byAddress = new Map<string, PodIdentity>();
  // Where the next watch starts; undefined: list first.
  let version: string | undefined;
  let goneInARow = 0;

  const removePod = (pod: Pod): void => {
    const uid = pod.metadata?.uid;
    for (const [address, identity] of byAddress) if (identity.podUid === uid) byAddress.delete(address);
  };

  async function list(sync: IdentitySync, signal: AbortSignal): Promise<string> {
    const { pods, resourceVersion } = await listPods(endpoint, signal);
    const next = new Map<string, PodIdentity>();
    for (const pod of pods) {
      const found = sandboxPodEntry(pod, labels);
      if (found === undefined) continue;
      const existing = next.get(found[0]);
      if (existing !== undefined && existing.sandboxId !== found[1].sandboxId && !sync.everSynced()) {
        throw new EgressProxyError({
          code: 'identity_not_synced',
          message: `Two sandboxes share the address ${found[0]} at the first sync; refusing to guess which is which.`,
        });
      }
      next.set(found[0], found[1]);
    }
    byAddress = next;
    return resourceVersion;
  }

  async function watch(resourceVersion: string, sync: IdentitySync, signal: AbortSignal): Promise<string> {
    const events = await openPodWatch({
      endpoint,
      resourceVersion,
      timeoutSeconds: options.watchTimeoutSeconds ?? 300,
      signal,
    });
    sync.markSynced();
    let seen = resourceVersion;
    for await (const event of events) {
      const pod = event.object;
      if (pod === undefined) continue;
      seen = pod.metadata?.resourceVersion ?? seen;
      if (event.type === 'BOOKMARK') continue;
      removePod(pod);
      if (event.type === 'DELETED') continue;
      const found = sandboxPodEntry(pod, labels);
      if (found !== undefined) byAddress.set(found[0], found[1]);
    }
    return seen;
  }

  return identitySourceLifecycle({
    source: 'kubernetes',
    ...omitUndefined({ backoff: options.backoff, logger: options.logger }),
    connect: async (sync, signal) => {
      if (version === undefined) version = await list(sync, signal);
      version = await watch(version, sync, signal);
      goneInARow = 0;
    },
    onFailure: async (error, sync) => {
      if (EgressProxyError.isInstance(error)) return 'fail';
      if (!(error instanceof PodWatchGoneError)) return undefined;
      log('identity_relist', [['source', 'kubernetes']]);
      version = undefined;
      // A server that answers 410 to every fresh version must not spin this loop.
      goneInARow += 1;
      if (goneInARow > 1) await new Promise((resolve) => setTimeout(resolve, sync.nextDelay()));
      return 'retry';
    },
    lookup: (address) => {
      const identity = byAddress.get(address);
      if (identity === undefined) return undefined;
      const { podUid: _podUid, ...rest } = identity;
      return rest;
    },
  });
}
