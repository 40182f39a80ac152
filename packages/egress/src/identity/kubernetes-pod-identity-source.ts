import { omitUndefined } from '@toolbus/spec';
import type { EgressLogger } from '../decision/egress-logger.ts';
import { EgressProxyError } from './egress-proxy-error.ts';
import {
  createBackoff,
  defaultSandboxLabels,
  type IdentitySource,
  type SandboxLabels,
} from './identity-source.ts';
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
  const backoff = createBackoff(options.backoff?.initialMs, options.backoff?.maxMs);
  const log = options.logger ?? (() => {});
  let byAddress = new Map<string, PodIdentity>();
  let synced = false;
  let everSynced = false;
  let stopped = false;
  let controller: AbortController | undefined;
  let resolveFirst: () => void = () => {};
  let rejectFirst: (error: unknown) => void = () => {};
  const firstSync = new Promise<void>((resolve, reject) => {
    resolveFirst = resolve;
    rejectFirst = reject;
  });
  firstSync.catch(() => {});

  const removePod = (pod: Pod): void => {
    const uid = pod.metadata?.uid;
    for (const [address, identity] of byAddress) if (identity.podUid === uid) byAddress.delete(address);
  };

  async function list(signal: AbortSignal): Promise<string> {
    const { pods, resourceVersion } = await listPods(endpoint, signal);
    const next = new Map<string, PodIdentity>();
    for (const pod of pods) {
      const found = sandboxPodEntry(pod, labels);
      if (found === undefined) continue;
      const existing = next.get(found[0]);
      if (existing !== undefined && existing.sandboxId !== found[1].sandboxId && !everSynced) {
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

  async function watch(resourceVersion: string, signal: AbortSignal): Promise<string> {
    const events = await openPodWatch({
      endpoint,
      resourceVersion,
      timeoutSeconds: options.watchTimeoutSeconds ?? 300,
      signal,
    });
    markSynced();
    let version = resourceVersion;
    for await (const event of events) {
      const pod = event.object;
      if (pod === undefined) continue;
      version = pod.metadata?.resourceVersion ?? version;
      if (event.type === 'BOOKMARK') continue;
      removePod(pod);
      if (event.type === 'DELETED') continue;
      const found = sandboxPodEntry(pod, labels);
      if (found !== undefined) byAddress.set(found[0], found[1]);
    }
    return version;
  }

  function markSynced(): void {
    synced = true;
    backoff.reset();
    if (!everSynced) {
      everSynced = true;
      resolveFirst();
    }
  }

  async function loop(): Promise<void> {
    let version: string | undefined;
    let goneInARow = 0;
    while (!stopped) {
      controller = new AbortController();
      try {
        if (version === undefined) version = await list(controller.signal);
        version = await watch(version, controller.signal);
        goneInARow = 0;
        // The server ended the watch (its timeout): reconnect from the last version, briefly unsynced.
        synced = false;
      } catch (error) {
        synced = false;
        if (stopped) return;
        if (EgressProxyError.isInstance(error)) {
          rejectFirst(error);
          return;
        }
        if (error instanceof PodWatchGoneError) {
          log('identity_relist', [['source', 'kubernetes']]);
          version = undefined;
          // A server that answers 410 to every fresh version must not spin this loop.
          goneInARow += 1;
          if (goneInARow > 1) await new Promise((resolve) => setTimeout(resolve, backoff.next()));
          continue;
        }
        const delay = backoff.next();
        log('identity_disconnected', [
          ['source', 'kubernetes'],
          ['retry_ms', delay],
        ]);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  return {
    identify: (address) => {
      if (!synced) return undefined;
      const identity = byAddress.get(address.replace(/^::ffff:/, ''));
      if (identity === undefined) return undefined;
      const { podUid: _podUid, ...rest } = identity;
      return rest;
    },
    synced: () => synced,
    start() {
      stopped = false;
      void loop();
    },
    stop() {
      stopped = true;
      synced = false;
      controller?.abort();
    },
    firstSync,
  };
}
