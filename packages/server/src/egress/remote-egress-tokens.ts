import { omitUndefined } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import { hasConnectedApps } from './sandbox-egress.ts';

/**
 * How long past its own time limit a run's token stays valid: the run may wait in an interpreter's queue, or be
 * retried on the next service of a pool, before its code starts.
 */
export const egressTokenQueueAllowanceMs = 10 * 60 * 1000;

/** Options for {@link remoteEgressTokens}. */
export interface RemoteEgressTokensOptions {
  readonly storage: Storage;
  /** The deployment's secret key (`TOOLBUS_SECRET_KEY`), which the standalone proxy shares. */
  readonly secretKey: Uint8Array;
  readonly userId: string;
  readonly organizationId?: string;
  /** The chat the runs belong to. */
  readonly sessionId?: string;
}

/**
 * The `egressToken` of run_python for interpreter services that relay run network to a standalone egress proxy:
 * one signed token per run, for this user, organisation and chat, tagged with the tool call, expiring when the run
 * can no longer be running. Minted only while the user has a connected app, so without one run_python keeps no
 * network at all, as in one process.
 */
export function remoteEgressTokens(
  options: RemoteEgressTokensOptions,
): (run: { readonly toolCallId: string; readonly timeoutMs: number }) => Promise<string | undefined> {
  // The proxy package is loaded at the first token, not with the server (see sandbox-egress.ts).
  let key: Uint8Array | undefined;
  return async (run) => {
    if (!(await hasConnectedApps(options.storage, options.userId, options.organizationId))) return undefined;
    const { deriveEgressTokenKey, mintEgressRunToken } = await import('@toolbus/egress/node');
    key ??= deriveEgressTokenKey(options.secretKey);
    return mintEgressRunToken({
      key,
      identity: {
        userId: options.userId,
        ...omitUndefined({ organizationId: options.organizationId, sessionId: options.sessionId }),
        tag: run.toolCallId,
      },
      ttlMs: run.timeoutMs + egressTokenQueueAllowanceMs,
    });
  };
}
