import type { ApprovalBroker } from '@toolbus/egress';
import { approvalBrokerOverAsks } from '@toolbus/server';
import { omitUndefined } from '@toolbus/spec';
import { connectRedis } from './connect-redis.ts';
import { RedisApprovalAsks } from './redis-approval-asks.ts';
import { RedisKeys } from './redis-keys.ts';

/** Options for {@link connectEgressApprovals}. */
export interface EgressApprovalsOptions {
  /** The deployment's `redis.url` (the replicas' own). Never logged. */
  readonly url: string;
  /** The replicas' key prefix (default `toolbus:`). */
  readonly prefix?: string;
  /** How long the proxy waits for a decision: the asks outlive it by 30 s, no more. */
  readonly approvalTimeoutMs?: number;
  /** How long an ask waits for a replica to take it (default 5 s). */
  readonly claimTimeoutMs?: number;
  /** Called with a background failure of the connection (the error carries no secret). */
  readonly onError?: (error: unknown) => void;
}

/** The approval broker of a standalone egress proxy, and its connection. */
export interface EgressApprovals {
  readonly broker: ApprovalBroker;
  close(): Promise<void>;
}

/**
 * The approval broker `toolbus egress serve` gives its proxy: an ASK request is asked, through the deployment's
 * Redis, of the replica running the turn of the request's chat, which shows the approval card in that chat exactly
 * as it does for its own proxy; the owner's decision comes back the same way.
 */
export async function connectEgressApprovals(options: EgressApprovalsOptions): Promise<EgressApprovals> {
  const redis = await connectRedis({ url: options.url, onError: options.onError ?? (() => {}) });
  const asks = new RedisApprovalAsks({
    redis,
    keys: new RedisKeys(options.prefix),
    ...omitUndefined({
      claimTimeoutMs: options.claimTimeoutMs,
      maxWaitMs: options.approvalTimeoutMs === undefined ? undefined : options.approvalTimeoutMs + 30_000,
    }),
  });
  return {
    broker: approvalBrokerOverAsks(asks),
    async close() {
      asks.disconnect();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
