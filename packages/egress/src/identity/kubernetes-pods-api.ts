import { omitUndefined } from '@toolbus/spec';
import type { EgressIdentity } from '../decision/egress-request.ts';
import { identityFromLabels, type SandboxLabels } from './identity-source.ts';
import { openJsonStream } from './open-json-stream.ts';

/** The pods endpoint of one namespace, and how to reach it. */
export interface KubernetesPodsEndpoint {
  /** `<apiUrl>/api/v1/namespaces/<namespace>/pods`. */
  readonly base: string;
  /** Which pods are sandboxes (a label selector). */
  readonly selector: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly ca?: string;
}

/** The fields of a pod the identity source reads. */
export interface Pod {
  readonly metadata?: {
    readonly name?: string;
    readonly uid?: string;
    readonly labels?: Record<string, string>;
    readonly resourceVersion?: string;
  };
  readonly status?: { readonly podIP?: string; readonly phase?: string };
}

/** One event of a pod watch (`ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK` or `ERROR`). */
export interface PodWatchEvent {
  readonly type?: string;
  readonly object?: Pod & { readonly kind?: string; readonly code?: number };
}

/** A sandbox pod's identity, keyed to its pod so a delete or re-address removes the right entry. */
export type PodIdentity = EgressIdentity & { readonly podUid: string };

/** `410 Gone`: the watched resourceVersion is too old, so the caller must list again. */
export class PodWatchGoneError extends Error {}

/** The address and identity of a running sandbox pod; undefined for other pods and for finished ones. */
export function sandboxPodEntry(pod: Pod, labels: SandboxLabels): [string, PodIdentity] | undefined {
  const address = pod.status?.podIP;
  const identity = identityFromLabels(pod.metadata?.labels, labels);
  if (address === undefined || address === '' || identity === undefined) return undefined;
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return undefined;
  return [address, { ...identity, podUid: pod.metadata?.uid ?? '' }];
}

/** Lists the sandbox pods, with the list's resourceVersion to start a watch from. */
export async function listPods(
  endpoint: KubernetesPodsEndpoint,
  signal: AbortSignal,
): Promise<{ readonly pods: readonly Pod[]; readonly resourceVersion: string }> {
  const stream = await openJsonStream({
    url: `${endpoint.base}?labelSelector=${encodeURIComponent(endpoint.selector)}`,
    headers: endpoint.headers,
    ...omitUndefined({ ca: endpoint.ca }),
    signal,
  });
  if (stream.status !== 200) {
    stream.close();
    throw new Error(`pod list answered ${stream.status}`);
  }
  const body = (await stream.json()) as { metadata?: { resourceVersion?: string }; items?: Pod[] };
  return { pods: body.items ?? [], resourceVersion: body.metadata?.resourceVersion ?? '' };
}

/**
 * Starts a watch of the sandbox pods from `resourceVersion`. It resolves once the API server accepted the watch
 * (the caller counts as synced from then on); the events follow. A `410` at the start or as an `ERROR` event
 * throws {@link PodWatchGoneError}.
 */
export async function openPodWatch(options: {
  readonly endpoint: KubernetesPodsEndpoint;
  readonly resourceVersion: string;
  readonly timeoutSeconds: number;
  readonly signal: AbortSignal;
}): Promise<AsyncIterable<PodWatchEvent>> {
  const { endpoint } = options;
  const query = new URLSearchParams({
    labelSelector: endpoint.selector,
    watch: '1',
    resourceVersion: options.resourceVersion,
    allowWatchBookmarks: 'true',
    timeoutSeconds: String(options.timeoutSeconds),
  });
  const stream = await openJsonStream({
    url: `${endpoint.base}?${query}`,
    headers: endpoint.headers,
    ...omitUndefined({ ca: endpoint.ca }),
    signal: options.signal,
  });
  if (stream.status === 410) {
    stream.close();
    throw new PodWatchGoneError();
  }
  if (stream.status !== 200) {
    stream.close();
    throw new Error(`pod watch answered ${stream.status}`);
  }
  return watchEvents(stream.values());
}

async function* watchEvents(values: AsyncIterable<unknown>): AsyncIterable<PodWatchEvent> {
  for await (const value of values) {
    const event = value as PodWatchEvent;
    if (event.type === 'ERROR') {
      if (event.object?.code === 410) throw new PodWatchGoneError();
      throw new Error(`watch error ${String(event.object?.code)}`);
    }
    yield event;
  }
}
