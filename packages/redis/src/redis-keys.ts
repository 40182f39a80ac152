import { createHash } from 'node:crypto';

/**
 * The names of everything the backend keeps in Redis, under one prefix (several deployments can share a Redis).
 * Chat ids are the storage's ids: no user text reaches a key name.
 */
export class RedisKeys {
  readonly prefix: string;

  constructor(prefix = 'toolbus:') {
    this.prefix = prefix;
  }

  /** The stream of a turn's packets (entry `0-<sequence>`; the end is entry `1-0`). */
  packets(chatId: string, turn: number): string {
    return `${this.prefix}turn:${chatId}:${turn}:packets`;
  }

  /** Set while a stop of the turn is requested. */
  stop(chatId: string, turn: number): string {
    return `${this.prefix}turn:${chatId}:${turn}:stop`;
  }

  /** Set once a worker started the turn: a second delivery is a redelivery. */
  started(chatId: string, turn: number): string {
    return `${this.prefix}turn:${chatId}:${turn}:started`;
  }

  /** The channel stop requests are published on. */
  get stopChannel(): string {
    return `${this.prefix}stops`;
  }

  /** A user's running-turn slots (a sorted set: holder → expiry). */
  slots(userId: string): string {
    return `${this.prefix}slots:${userId}`;
  }

  /** A user's request-rate bucket (a hash: tokens, at). */
  rate(userId: string): string {
    return `${this.prefix}rate:${userId}`;
  }

  /** A single-flight lock. */
  lock(key: string): string {
    return `${this.prefix}lock:${key}`;
  }

  /**
   * An egress approval waiting for its owner (a hash: owner, then the decision). The id arrives in a request path,
   * so the key holds its digest, not the id.
   */
  approval(approvalId: string): string {
    return `${this.prefix}approval:${createHash('sha256').update(approvalId).digest('hex')}`;
  }

  /** An MCP elicitation waiting for its chat's owner (a hash like {@link RedisKeys.approval}; the id is hashed too). */
  elicitation(elicitationId: string): string {
    return `${this.prefix}elicitation:${createHash('sha256').update(elicitationId).digest('hex')}`;
  }

  /** The channel MCP elicitation answers are published on. */
  get elicitationChannel(): string {
    return `${this.prefix}elicitations`;
  }

  /** The channel approval decisions are published on. */
  get approvalChannel(): string {
    return `${this.prefix}approvals`;
  }

  /**
   * Who took a standalone egress proxy's ask (the replica's nonce, or `withdrawn` once the proxy gave up). Keyed by
   * the digest of the approval id, as {@link RedisKeys.approval}.
   */
  approvalAskClaim(approvalId: string): string {
    return `${this.prefix}approval-ask:${createHash('sha256').update(approvalId).digest('hex')}:claim`;
  }

  /** The decision of a standalone egress proxy's ask, as the replica that took it answered. */
  approvalAskAnswer(approvalId: string): string {
    return `${this.prefix}approval-ask:${createHash('sha256').update(approvalId).digest('hex')}:answer`;
  }

  /** The channel standalone egress proxies publish their asks (and withdrawals) on. */
  get approvalAskChannel(): string {
    return `${this.prefix}approval-asks`;
  }

  /** The channel replicas publish the answers to those asks on. */
  get approvalAnswerChannel(): string {
    return `${this.prefix}approval-answers`;
  }

  /** A chat's session grants (a hash: one field per target and action). */
  approvalGrants(chatId: string): string {
    return `${this.prefix}chat:${chatId}:approval-grants`;
  }

  /** BullMQ's own prefix (its keys live under it). */
  get queuePrefix(): string {
    return `${this.prefix}bull`;
  }
}
