import { omitUndefined, withinDeadline } from '@toolbus/spec';
import type { EgressIdentity } from '../decision/egress-request.ts';
import { EgressProxyError } from './egress-proxy-error.ts';

/**
 * Where the proxy, running as its own service, learns which sandbox a source address belongs to (a Kubernetes
 * pod informer, Docker's events). Until it has synced, and again whenever its watch breaks, `synced()` is false
 * and the proxy refuses traffic: an address it has not verified is never trusted.
 */
export interface IdentitySource {
  /** The identity of the sandbox at `address`; undefined when unknown or while not synced. */
  identify(address: string): EgressIdentity | undefined;
  synced(): boolean;
  start(): void;
  stop(): void;
  /** Resolves on the first sync; rejects when the source fails hard (two sandboxes on one address at sync). */
  readonly firstSync: Promise<void>;
}

/** How long the proxy waits for its identity source before it gives up and exits: 60 s. */
export const defaultIdentitySyncTimeoutMs = 60_000;

/** Waits for the first sync, failing with `identity_not_synced` after `timeoutMs`. */
export async function waitForIdentitySync(
  source: IdentitySource,
  timeoutMs = defaultIdentitySyncTimeoutMs,
): Promise<void> {
  await withinDeadline(source.firstSync, {
    timeoutMs,
    onTimeout: () =>
      new EgressProxyError({
        code: 'identity_not_synced',
        message: `The identity source did not sync within ${Math.round(timeoutMs / 1000)} s; refusing to serve unverified traffic.`,
      }),
  });
}

/** Reconnect delays: 1 s doubling to 30 s, reset after a successful sync. */
export interface Backoff {
  next(): number;
  reset(): void;
}

/** A doubling backoff between `initialMs` and `maxMs`. */
export function createBackoff(initialMs = 1000, maxMs = 30_000): Backoff {
  let current = initialMs;
  return {
    next() {
      const delay = current;
      current = Math.min(current * 2, maxMs);
      return delay;
    },
    reset() {
      current = initialMs;
    },
  };
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Label names a sandbox pod or container carries. */
export interface SandboxLabels {
  /** A UUID naming the sandbox. */
  readonly sandboxId: string;
  /** The user the sandbox runs for; a sandbox without one is unidentified. */
  readonly userId: string;
  /** The organisation (tenant). */
  readonly organizationId: string;
  /**
   * The chat the sandbox serves, set by whoever starts the pod or container (code inside cannot change its own
   * labels): where its approval cards appear. A sandbox without one can still name a chat of its user in-band.
   */
  readonly sessionId?: string;
  /** Must equal `managedByValue`; re-checked on every object, so a foreign pod never becomes a sandbox. */
  readonly managedBy: string;
  readonly managedByValue: string;
}

/**
 * The default labels: `toolbus.dev/sandbox-id`, `toolbus.dev/user-id`, `toolbus.dev/organization-id`,
 * `toolbus.dev/session-id`, managed-by toolbus.
 */
export const defaultSandboxLabels: SandboxLabels = {
  sandboxId: 'toolbus.dev/sandbox-id',
  userId: 'toolbus.dev/user-id',
  organizationId: 'toolbus.dev/organization-id',
  sessionId: 'toolbus.dev/session-id',
  managedBy: 'app.kubernetes.io/managed-by',
  managedByValue: 'toolbus',
};

/** The identity labels describe, or undefined when they do not describe a sandbox of ours. */
export function identityFromLabels(
  labels: Readonly<Record<string, string>> | undefined,
  names: SandboxLabels,
): EgressIdentity | undefined {
  if (labels === undefined || labels[names.managedBy] !== names.managedByValue) return undefined;
  const sandboxId = labels[names.sandboxId];
  const userId = labels[names.userId];
  if (sandboxId === undefined || !uuidPattern.test(sandboxId) || userId === undefined || userId === '')
    return undefined;
  const organizationId = labels[names.organizationId];
  // A malformed session label names no session (the proxy then asks nobody): it never makes the sandbox unknown.
  const session = names.sessionId === undefined ? undefined : labels[names.sessionId];
  const sessionId = session !== undefined && sessionIdPattern.test(session) ? session : undefined;
  return { sandboxId, userId, ...omitUndefined({ organizationId, sessionId }) };
}

/** What a session label may hold: a storage id (a Kubernetes label value is at most 63 such characters). */
const sessionIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
