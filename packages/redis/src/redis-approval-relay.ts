import type { ApprovalDecision } from '@toolbus/egress';
import type { ApprovalRelay, WaitingApproval } from '@toolbus/server';
import type { Redis } from 'ioredis';
import { asDecision, parseDecisionMessage } from './approval-decision-message.ts';
import { RedisChannelSubscriptions } from './redis-channel-subscriptions.ts';
import type { RedisKeys } from './redis-keys.ts';

// The owner check, the first-decision-wins check and the message to the waiting replica in one step.
const decideScript = `
if redis.call('HGET', KEYS[1], 'user') ~= ARGV[1] then return 0 end
if redis.call('HSETNX', KEYS[1], 'decision', ARGV[2]) == 0 then return 0 end
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
`;

// Whatever was decided by the time the wait ends, and the approval is gone: a later decision finds nothing.
const closeScript = `
local decision = redis.call('HGET', KEYS[1], 'decision')
redis.call('DEL', KEYS[1])
return decision
`;

/** How long a chat's session grants outlive its last grant. */
const grantRetentionMs = 7 * 24 * 3_600_000;

/**
 * Approvals every replica sees: a waiting approval is a hash with its owner and a lifetime, a decision is
 * written into it (first one wins, owner only) and published on one pub/sub channel for the replica whose proxy
 * waits; a decision whose message was lost is found by that replica's periodic re-read. Session grants are a
 * hash per chat.
 */
export class RedisApprovalRelay implements ApprovalRelay {
  readonly recheckIntervalMs: number;
  readonly #redis: Redis;
  readonly #keys: RedisKeys;
  readonly #subscriptions: RedisChannelSubscriptions;

  constructor(options: {
    readonly redis: Redis;
    readonly keys: RedisKeys;
    /** How often a waiting replica re-reads its approvals (default 2 s). */
    readonly recheckIntervalMs?: number;
  }) {
    this.#redis = options.redis;
    this.#keys = options.keys;
    this.recheckIntervalMs = options.recheckIntervalMs ?? 2_000;
    this.#subscriptions = new RedisChannelSubscriptions({
      redis: options.redis,
      channel: options.keys.approvalChannel,
    });
  }

  async open(approval: WaitingApproval): Promise<void> {
    const key = this.#keys.approval(approval.approvalId);
    await this.#redis.multi().hset(key, 'user', approval.userId).pexpire(key, approval.ttlMs).exec();
  }

  async decide(userId: string, approvalId: string, decision: ApprovalDecision): Promise<boolean> {
    const decided = await this.#redis.eval(
      decideScript,
      1,
      this.#keys.approval(approvalId),
      userId,
      decision,
      this.#keys.approvalChannel,
      JSON.stringify({ approvalId, decision }),
    );
    return decided === 1;
  }

  async close(approvalId: string): Promise<ApprovalDecision | undefined> {
    return asDecision(await this.#redis.eval(closeScript, 1, this.#keys.approval(approvalId)));
  }

  async decision(approvalId: string): Promise<ApprovalDecision | undefined> {
    return asDecision(await this.#redis.hget(this.#keys.approval(approvalId), 'decision'));
  }

  async subscribe(
    listener: (approvalId: string, decision: ApprovalDecision) => void,
  ): Promise<() => Promise<void>> {
    return this.#subscriptions.subscribe((message) => {
      const parsed = parseDecisionMessage(message);
      if (parsed) listener(parsed.approvalId, parsed.decision);
    });
  }

  async grant(sessionId: string, grants: readonly string[]): Promise<void> {
    if (grants.length === 0) return;
    const key = this.#keys.approvalGrants(sessionId);
    await this.#redis
      .multi()
      .hset(key, Object.fromEntries(grants.map((grant) => [grant, '1'])))
      .pexpire(key, grantRetentionMs)
      .exec();
  }

  async granted(sessionId: string, grants: readonly string[]): Promise<boolean> {
    if (grants.length === 0) return true;
    const held = await this.#redis.hmget(this.#keys.approvalGrants(sessionId), ...grants);
    return held.every((value) => value !== null);
  }

  /** Closes the subscriptions still open. */
  disconnect(): void {
    this.#subscriptions.disconnectAll();
  }
}
