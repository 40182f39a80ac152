import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, ApprovalRequest } from '@toolbus/egress';
import { defaultApprovalTimeoutMs } from '@toolbus/egress';
import {
  type ApprovalAskHandler,
  type ApprovalAsks,
  approvalPayloadPreview,
  noTurnForAsk,
} from '@toolbus/server';
import type { Redis } from 'ioredis';
import { asDecision, parseDecisionMessage } from './approval-decision-message.ts';
import { RedisChannelSubscriptions } from './redis-channel-subscriptions.ts';
import type { RedisKeys } from './redis-keys.ts';

/** Options for {@link RedisApprovalAsks}. */
export interface RedisApprovalAsksOptions {
  readonly redis: Redis;
  readonly keys: RedisKeys;
  /** How long an ask waits for a replica to take it before it fails (default 5 s). */
  readonly claimTimeoutMs?: number;
  /**
   * How often each side re-reads what pub/sub may have lost (default 500 ms): the proxy re-publishes an ask nobody
   * took and reads the answer; the replica checks that the ask was not withdrawn.
   */
  readonly recheckIntervalMs?: number;
  /** The longest an ask can wait (default the proxy's 180 s and 30 s of grace); the replica ends it then too. */
  readonly maxWaitMs?: number;
}

/** What an ask carries at most of the request body; a larger body travels as its masked, cut card preview. */
const maxPayloadCharacters = 64 * 1024;

type AskMessage =
  | { readonly type: 'ask'; readonly request: ApprovalRequest }
  | { readonly type: 'withdraw'; readonly approvalId: string };

/**
 * Asks of standalone egress proxies through Redis. The proxy publishes the ask; each replica that runs a turn of
 * the ask's chat tries to take it with `SET NX` on a claim key (exactly one wins), shows the card, and writes the
 * decision to an answer key and the answer channel. Pub/sub can lose a message, so the proxy re-publishes an ask
 * nobody took and re-reads the answer, and the replica re-reads the claim (a withdrawal overwrites it). An ask no
 * replica takes within the claim window fails: no turn of that chat runs anywhere.
 */
export class RedisApprovalAsks implements ApprovalAsks {
  readonly #redis: Redis;
  readonly #keys: RedisKeys;
  readonly #claimTimeoutMs: number;
  readonly #recheckMs: number;
  readonly #maxWaitMs: number;
  readonly #askChannel: RedisChannelSubscriptions;
  readonly #answerChannel: RedisChannelSubscriptions;
  readonly #waiters = new Map<string, (decision: ApprovalDecision) => void>();
  #answers: Promise<() => Promise<void>> | undefined;

  constructor(options: RedisApprovalAsksOptions) {
    this.#redis = options.redis;
    this.#keys = options.keys;
    this.#claimTimeoutMs = options.claimTimeoutMs ?? 5_000;
    this.#recheckMs = options.recheckIntervalMs ?? 500;
    this.#maxWaitMs = options.maxWaitMs ?? defaultApprovalTimeoutMs + 30_000;
    this.#askChannel = new RedisChannelSubscriptions({
      redis: this.#redis,
      channel: this.#keys.approvalAskChannel,
    });
    this.#answerChannel = new RedisChannelSubscriptions({
      redis: this.#redis,
      channel: this.#keys.approvalAnswerChannel,
    });
  }

  async serve(handler: ApprovalAskHandler): Promise<() => Promise<void>> {
    const running = new Map<string, AbortController>();
    const unsubscribe = await this.#askChannel.subscribe((message) => {
      const parsed = parseAsk(message);
      if (parsed?.type === 'withdraw') running.get(parsed.approvalId)?.abort();
      else if (parsed?.type === 'ask' && !running.has(parsed.request.approvalId)) {
        void this.#take(parsed.request, handler, running).catch(() => undefined);
      }
    });
    return async () => {
      for (const controller of running.values()) controller.abort();
      await unsubscribe();
    };
  }

  /** Takes one ask if this replica runs the chat's turn and wins the claim, then answers it. */
  async #take(
    request: ApprovalRequest,
    handler: ApprovalAskHandler,
    running: Map<string, AbortController>,
  ): Promise<void> {
    const wait = handler(request);
    if (wait === undefined) return;
    const id = request.approvalId;
    const nonce = randomUUID();
    const claimKey = this.#keys.approvalAskClaim(id);
    if ((await this.#redis.set(claimKey, nonce, 'PX', this.#maxWaitMs, 'NX')) !== 'OK') return;
    const controller = new AbortController();
    running.set(id, controller);
    // A withdrawal whose message was lost is seen here; an ask whose proxy died ends at the longest wait.
    const recheck = setInterval(() => {
      this.#redis.get(claimKey).then(
        (holder) => {
          if (holder !== nonce) controller.abort();
        },
        () => undefined,
      );
    }, this.#recheckMs);
    const deadline = setTimeout(() => controller.abort(), this.#maxWaitMs);
    let decision: ApprovalDecision;
    try {
      decision = await wait(controller.signal).catch(() => 'rejected' as const);
    } finally {
      clearInterval(recheck);
      clearTimeout(deadline);
      running.delete(id);
    }
    await this.#redis
      .multi()
      .set(this.#keys.approvalAskAnswer(id), decision, 'PX', this.#maxWaitMs)
      .publish(this.#keys.approvalAnswerChannel, JSON.stringify({ approvalId: id, decision }))
      .exec();
  }

  async ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    await this.#listenForAnswers();
    const id = request.approvalId;
    const claimKey = this.#keys.approvalAskClaim(id);
    const answerKey = this.#keys.approvalAskAnswer(id);
    const message = JSON.stringify({ type: 'ask', request: withBoundedPayload(request) });
    const publish = () => this.#redis.publish(this.#keys.approvalAskChannel, message);
    const started = Date.now();
    return new Promise<ApprovalDecision>((resolve, reject) => {
      let taken = false;
      let done = false;
      const finish = (outcome: () => void) => {
        if (done) return;
        done = true;
        clearInterval(recheck);
        signal.removeEventListener('abort', onAbort);
        this.#waiters.delete(id);
        outcome();
      };
      const onAbort = () => {
        finish(() => resolve('rejected'));
        // No replica may take it from now on, and the one that did ends its card (expired).
        void this.#redis
          .multi()
          .set(claimKey, 'withdrawn', 'PX', this.#maxWaitMs)
          .publish(this.#keys.approvalAskChannel, JSON.stringify({ type: 'withdraw', approvalId: id }))
          .exec()
          .catch(() => undefined);
      };
      const recheck = setInterval(() => {
        void this.#reread({ claimKey, answerKey, taken }).then(
          (state) => {
            if (state.decision !== undefined) finish(() => resolve(state.decision as ApprovalDecision));
            else if (state.taken) taken = true;
            else if (Date.now() - started >= this.#claimTimeoutMs)
              finish(() => reject(noTurnForAsk(request.sessionId)));
            else void publish().catch(() => undefined);
          },
          () => undefined,
        );
      }, this.#recheckMs);
      this.#waiters.set(id, (decision) => finish(() => resolve(decision)));
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
      else
        publish().catch((error: unknown) => {
          finish(() => reject(error));
        });
    });
  }

  /** What Redis holds about an ask now: its answer, and whether a replica took it. */
  async #reread(state: {
    readonly claimKey: string;
    readonly answerKey: string;
    readonly taken: boolean;
  }): Promise<{ decision?: ApprovalDecision; taken: boolean }> {
    const [answer, holder] = await Promise.all([
      this.#redis.get(state.answerKey),
      state.taken ? Promise.resolve('taken') : this.#redis.get(state.claimKey),
    ]);
    const decision = asDecision(answer);
    return decision === undefined ? { taken: holder !== null } : { decision, taken: true };
  }

  #listenForAnswers(): Promise<unknown> {
    this.#answers ??= this.#answerChannel.subscribe((message) => {
      const parsed = parseDecisionMessage(message);
      if (parsed !== undefined) this.#waiters.get(parsed.approvalId)?.(parsed.decision);
    });
    return this.#answers;
  }

  /** Closes the subscriptions still open. */
  disconnect(): void {
    this.#askChannel.disconnectAll();
    this.#answerChannel.disconnectAll();
    this.#answers = undefined;
  }
}

/** The request as an ask carries it: a body too large for a message travels as its masked, cut card preview. */
function withBoundedPayload(request: ApprovalRequest): ApprovalRequest {
  if (request.payload === undefined) return request;
  const size = JSON.stringify(request.payload)?.length ?? 0;
  if (size <= maxPayloadCharacters) return request;
  return { ...request, payload: { preview: approvalPayloadPreview(request.payload) } };
}

function parseAsk(message: string): AskMessage | undefined {
  try {
    const value = JSON.parse(message) as { type?: unknown; request?: unknown; approvalId?: unknown };
    if (value.type === 'withdraw' && typeof value.approvalId === 'string') {
      return { type: 'withdraw', approvalId: value.approvalId };
    }
    const request = value.request as Partial<ApprovalRequest> | undefined;
    if (
      value.type === 'ask' &&
      typeof request?.approvalId === 'string' &&
      typeof request.sessionId === 'string' &&
      typeof request.identity?.sandboxId === 'string' &&
      typeof request.target?.id === 'string' &&
      Array.isArray(request.actions) &&
      typeof request.method === 'string' &&
      typeof request.destination === 'string'
    ) {
      return { type: 'ask', request: request as ApprovalRequest };
    }
  } catch {
    // Not ours: ignored.
  }
  return undefined;
}
