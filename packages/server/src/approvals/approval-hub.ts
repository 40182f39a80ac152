import type { ApprovalBroker, ApprovalDecision, ApprovalRequest } from '@toolbus/egress';
import { defaultApprovalTimeoutMs } from '@toolbus/egress';
import { type ApprovalResolution, omitUndefined, type PacketObject } from '@toolbus/spec';
import { ServerError } from '../http/server-error.ts';
import type { ApprovalAskHandler, ApprovalAsks } from '../scale-out/approval-asks.ts';
import { type ApprovalRelay, InProcessApprovalRelay } from '../scale-out/approval-relay.ts';
import { approvalPayloadPreview } from './approval-preview.ts';

/** A decision as a client sends it (`POST /v1/approvals/{approvalId}`). */
export type ApprovalChoice = 'approve' | 'reject' | 'allow-session';

/** Where a turn's approval packets go: the turn's stream, at the tool call that runs the code when known. */
export type ApprovalPacketSink = (packet: PacketObject, toolCallId: string | undefined) => void;

/** The approvals of one turn: the broker its egress proxy asks, and the wait it is given. */
export interface TurnApprovals {
  readonly broker: ApprovalBroker;
  /** How long an ASK request waits (the proxy bounds the wait with this; the card shows the expiry). */
  readonly timeoutMs: number;
  /** The session grants are kept for: the chat. */
  readonly sessionId: string;
  /** Connects the turn's stream once the turn runs (requests before that wait for it). */
  attach(sink: ApprovalPacketSink): void;
  /** The turn ended: what still waits is withdrawn (the proxy refuses it). */
  close(): void;
}

interface Pending {
  settle(decision: ApprovalDecision): void;
}

/** How much longer than the proxy's wait the relay keeps an approval (a replica that died never closes it). */
const relayGraceMs = 30_000;

/**
 * The server's approval broker. An ASK request parks here, an `approval-request` packet goes into the turn's
 * stream, and the chat's owner decides with {@link ApprovalHub.decide} (only the owner: for anyone else the
 * approval does not exist). An `approval-resolved` packet follows every end: decided, expired, or withdrawn.
 * Decisions and session grants (per chat) go through an {@link ApprovalRelay}: in this process by default, shared
 * by every replica with a scale-out backend, so a decision reaches the replica whose proxy waits wherever it was
 * sent.
 */
export class ApprovalHub {
  readonly timeoutMs: number;
  readonly #pending = new Map<string, Pending>();
  readonly #relay: ApprovalRelay;
  readonly #now: () => number;
  readonly #asks: ApprovalAsks | undefined;
  /** The turns running here, by chat: where a standalone egress proxy's asks for that chat go. */
  readonly #turns = new Map<string, ApprovalBroker>();
  #listening: Promise<() => Promise<void>> | undefined;

  constructor(
    options: {
      readonly timeoutMs?: number;
      readonly now?: () => number;
      /** Where decisions and grants go (default: this process only). */
      readonly relay?: ApprovalRelay;
      /** Asks of standalone egress proxies for turns running here (scale-out only). */
      readonly asks?: ApprovalAsks;
    } = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? defaultApprovalTimeoutMs;
    this.#now = options.now ?? Date.now;
    this.#relay = options.relay ?? new InProcessApprovalRelay(omitUndefined({ now: options.now }));
    this.#asks = options.asks;
  }

  /** Approvals waiting in this process now (for a status line or a drain). */
  get pending(): number {
    return this.#pending.size;
  }

  /** Starts receiving decisions from the relay (once; a request waits for it before it is announced). */
  listen(): Promise<void> {
    this.#listening ??= this.#subscribe();
    return this.#listening.then(() => undefined);
  }

  async #subscribe(): Promise<() => Promise<void>> {
    const decisions = await this.#relay.subscribe((approvalId, decision) =>
      this.#pending.get(approvalId)?.settle(decision),
    );
    const asks = await this.#asks?.serve(this.#answerAsk).catch(async (error: unknown) => {
      await decisions();
      throw error;
    });
    return async () => {
      await asks?.();
      await decisions();
    };
  }

  /**
   * A standalone egress proxy's ask for a chat whose turn runs here: the chat's session grants answer it at once,
   * else it waits like the turn's own proxy's requests (same card, same owner check, same decision route).
   */
  readonly #answerAsk: ApprovalAskHandler = (request) => {
    const broker = this.#turns.get(request.sessionId);
    if (broker === undefined) return undefined;
    return async (signal) =>
      (await broker.hasGrant(request)) ? 'approved' : broker.requestApproval(request, signal);
  };

  /** Stops receiving decisions (the server closed; its turns withdrew what they waited for). */
  async close(): Promise<void> {
    const listening = this.#listening;
    this.#listening = undefined;
    if (listening !== undefined) await (await listening)();
  }

  /** The approvals of one turn of `chatId`, owned by `userId`. */
  forTurn(turn: { readonly chatId: string; readonly userId: string }): TurnApprovals {
    const hub = this;
    const relay = this.#relay;
    let sink: ApprovalPacketSink | undefined;
    const early: [PacketObject, string | undefined][] = [];
    const emit: ApprovalPacketSink = (packet, toolCallId) => {
      if (sink === undefined) early.push([packet, toolCallId]);
      else sink(packet, toolCallId);
    };
    const mine = new Set<string>();
    let closed = false;
    const grantsOf = (request: ApprovalRequest) =>
      request.actions.map((action) => [request.target.kind, request.target.id, action.type].join('\u0000'));
    const broker: ApprovalBroker = {
      // A grant that cannot be read is no grant: the request is asked about instead.
      hasGrant: async (request) =>
        request.identity.userId === turn.userId &&
        (await relay.granted(turn.chatId, grantsOf(request)).catch(() => false)),
      async requestApproval(request, signal) {
        // Fail closed: a sandbox of another user (or of nobody) cannot ask in this chat.
        if (closed || request.identity.userId !== turn.userId) return 'rejected';
        const toolCallId = request.identity.tag;
        await hub.listen();
        await relay.open({
          approvalId: request.approvalId,
          userId: turn.userId,
          ttlMs: hub.timeoutMs + relayGraceMs,
        });
        return new Promise<ApprovalDecision>((resolve) => {
          let done = false;
          let recheck: NodeJS.Timeout | undefined;
          const finish = async (resolution: ApprovalResolution, decision: ApprovalDecision) => {
            if (done) return;
            done = true;
            hub.#pending.delete(request.approvalId);
            mine.delete(request.approvalId);
            clearInterval(recheck);
            signal.removeEventListener('abort', onAbort);
            // A relay failure must not leave the proxy waiting: the decision stands, the grant may be lost.
            await relay.close(request.approvalId).catch(() => undefined);
            if (resolution === 'approved_for_session') {
              await relay.grant(turn.chatId, grantsOf(request)).catch(() => undefined);
            }
            emit({ type: 'approval-resolved', approvalId: request.approvalId, resolution }, toolCallId);
            resolve(decision);
          };
          // The proxy gave up: expired, even if a decision raced it through the relay (the request was not sent).
          const onAbort = () => void finish('expired', 'rejected');
          hub.#pending.set(request.approvalId, { settle: (decision) => void finish(decision, decision) });
          mine.add(request.approvalId);
          signal.addEventListener('abort', onAbort, { once: true });
          if (relay.recheckIntervalMs !== undefined) {
            recheck = setInterval(() => {
              relay.decision(request.approvalId).then(
                (decision) => {
                  if (decision !== undefined) void finish(decision, decision);
                },
                () => undefined,
              );
            }, relay.recheckIntervalMs);
            recheck.unref();
          }
          const preview = approvalPayloadPreview(request.payload);
          emit(
            {
              type: 'approval-request',
              approvalId: request.approvalId,
              ...omitUndefined({ toolCallId }),
              subject: { kind: request.target.kind, name: request.target.name },
              actions: request.actions.map((action) => action.type),
              method: request.method,
              url: request.destination,
              ...omitUndefined({ payloadPreview: preview }),
              expiresAt: new Date(hub.#now() + hub.timeoutMs).toISOString(),
            },
            toolCallId,
          );
          if (signal.aborted) onAbort();
        });
      },
    };
    hub.#turns.set(turn.chatId, broker);
    return {
      broker,
      timeoutMs: this.timeoutMs,
      sessionId: turn.chatId,
      attach(next) {
        sink = next;
        for (const [packet, toolCallId] of early.splice(0)) next(packet, toolCallId);
      },
      close() {
        closed = true;
        if (hub.#turns.get(turn.chatId) === broker) hub.#turns.delete(turn.chatId);
        for (const id of [...mine]) hub.#pending.get(id)?.settle('rejected');
      },
    };
  }

  /**
   * Decides a waiting approval for its owner, wherever its turn runs; `not_found` when it is not waiting or
   * belongs to someone else (an approval id proves nothing, so another user's is indistinguishable from one that
   * never existed).
   */
  async decide(userId: string, approvalId: string, choice: ApprovalChoice): Promise<ApprovalResolution> {
    const decision: ApprovalDecision =
      choice === 'approve' ? 'approved' : choice === 'allow-session' ? 'approved_for_session' : 'rejected';
    if (!(await this.#relay.decide(userId, approvalId, decision))) {
      throw new ServerError({
        code: 'not_found',
        field: 'path.approvalId',
        message:
          'path.approvalId: no approval of yours with this id is waiting (it may have expired or been decided).',
      });
    }
    return decision;
  }
}
