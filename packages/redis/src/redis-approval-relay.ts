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

/** What a relay carries: where each waiting item lives, the channel its decisions go on, and what a decision is. */
export interface RelayedKind<D extends string> {
  key(id: string): string;
  readonly channel: string;
  decode(value: unknown): D | undefined;
}

function approvalKind(keys: RedisKeys): RelayedKind<ApprovalDecision> {
  return { key: (id) => keys.approval(id), channel: keys.approvalChannel, decode: asDecision };
}

/** MCP elicitation answers (an encoded answer is any string; the elicitation hub reads it). */
export function elicitationKind(keys: RedisKeys): RelayedKind<string> {
  return {
    key: (id) => keys.elicitation(id),
    channel: keys.elicitationChannel,
    decode: (value) => (typeof value === 'string' ? value : undefined),
  };
}

/** How long a chat's session grants outlive its last grant. */
const grantRetentionMs = 7 * 24 * 3_600_000;

/**
 * Approvals every replica sees: a waiting approval is a hash with its owner and a lifetime, a decision is
 * written into it (first one wins, owner only) and published on one pub/sub channel for the replica whose proxy
 * waits; a decision whose message was lost is found by that replica's periodic re-read. Session grants are a
 * hash per chat.
 */
export class RedisApprovalRelay<D extends string = ApprovalDecision> implements ApprovalRelay<D> {
  readonly recheckIntervalMs: number;
  readonly #redis: Redis;
  readonly #keys: RedisKeys;
  readonly #subscriptions: RedisChannelSubscriptions;
  readonly #kind: RelayedKind<D>;

  constructor(options: {
    readonly redis: Redis;
    readonly keys: RedisKeys;
    /** How often a waiting replica re-reads its approvals (default 2 s). */
    readonly recheckIntervalMs?: number;
    /** What is relayed, when not egress approvals (MCP elicitation answers): its keys, channel and decisions. */
    readonly kind?: RelayedKind<D>;
  }) {
    this.#redis = options.redis;
    this.#keys = options.keys;
    this.#kind = options.kind ?? (approvalKind(options.keys) as unknown as RelayedKind<D>);
    this.recheckIntervalMs = options.recheckIntervalMs ?? 2_000;
    this.#subscriptions = new RedisChannelSubscriptions({
      redis: options.redis,
      channel: this.#kind.channel,
    });
  }

  async open(approval: WaitingApproval): Promise<void> {
    const key = this.#kind.key(approval.approvalId);
    await this.#redis.multi().hset(key, 'user', approval.userId).pexpire(key, approval.ttlMs).exec();
  }

  async decide(userId: string, approvalId: string, decision: D): Promise<boolean> {
    const decided = await this.#redis.eval(
      decideScript,
      1,
      this.#kind.key(approvalId),
      userId,
      decision,
      this.#kind.channel,
      JSON.stringify({ approvalId, decision }),
    );
    return decided === 1;
  }

  async close(approvalId: string): Promise<D | undefined> {
    return this.#kind.decode(await this.#redis.eval(closeScript, 1, this.#kind.key(approvalId)));
  }

  async decision(approvalId: string): Promise<D | undefined> {
    return this.#kind.decode(await this.#redis.hget(this.#kind.key(approvalId), 'decision'));
  }

  async subscribe(listener: (approvalId: string, decision: D) => void): Promise<() => Promise<void>> {
    return this.#subscriptions.subscribe((message) => {
      const parsed = parseDecisionMessage(message, this.#kind.decode);
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
