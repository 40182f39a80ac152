import type { ApprovalBroker, ApprovalDecision, ApprovalRequest } from '@toolbus/egress';
import { defaultApprovalTimeoutMs } from '@toolbus/egress';
import { type ApprovalResolution, omitUndefined } from '@toolbus/spec';
import { notFoundError } from '../http/server-error.ts';
import type { ApprovalAskHandler, ApprovalAsks } from '../scale-out/approval-asks.ts';
import { type ApprovalRelay, InProcessApprovalRelay } from '../scale-out/approval-relay.ts';
import { type ApprovalPacketSink, RelayedAnswers } from '../scale-out/relayed-answers.ts';
import { approvalPayloadPreview } from './approval-preview.ts';

/** A decision as a client sends it (`POST /v1/approvals/{approvalId}`). */
export type ApprovalChoice = 'approve' | 'reject' | 'allow-session';

export type { ApprovalPacketSink } from '../scale-out/relayed-answers.ts';

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

/** How a wait ended: the card's resolution and what the proxy is told. */
interface Ending {
  readonly resolution: ApprovalResolution;
  readonly decision: ApprovalDecision;
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
  readonly #answers: RelayedAnswers<ApprovalDecision, Ending>;
  readonly #now: () => number;
  /** The turns running here, by chat: where a standalone egress proxy's asks for that chat go. */
  readonly #turns = new Map<string, ApprovalBroker>();

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
    const asks = options.asks;
    this.#answers = new RelayedAnswers({
      relay: options.relay ?? new InProcessApprovalRelay(omitUndefined({ now: options.now })),
      ...omitUndefined({ alsoListen: asks && (() => asks.serve(this.#answerAsk)) }),
    });
  }

  /** Approvals waiting in this process now (for a status line or a drain). */
  get pending(): number {
    return this.#answers.pending;
  }

  /** Starts receiving decisions from the relay (once; a request waits for it before it is announced). */
  listen(): Promise<void> {
    return this.#answers.listen();
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
  close(): Promise<void> {
    return this.#answers.close();
  }

  /** The approvals of one turn of `chatId`, owned by `userId`. */
  forTurn(turn: { readonly chatId: string; readonly userId: string }): TurnApprovals {
    const hub = this;
    const relay = this.#answers.relay;
    const answers = this.#answers.forTurn();
    const grantsOf = (request: ApprovalRequest) =>
      request.actions.map((action) => [request.target.kind, request.target.id, action.type].join('\u0000'));
    const broker: ApprovalBroker = {
      // A grant that cannot be read is no grant: the request is asked about instead.
      hasGrant: async (request) =>
        request.identity.userId === turn.userId &&
        (await relay.granted(turn.chatId, grantsOf(request)).catch(() => false)),
      async requestApproval(request, signal) {
        // Fail closed: a sandbox of another user (or of nobody) cannot ask in this chat.
        if (answers.closed || request.identity.userId !== turn.userId) return 'rejected';
        const toolCallId = request.identity.tag;
        const decided = (decision: ApprovalDecision): Ending => ({ resolution: decision, decision });
        const ending = await answers.wait({
          id: request.approvalId,
          ownerKey: turn.userId,
          ttlMs: hub.timeoutMs + relayGraceMs,
          signal,
          // The proxy gave up: expired, even if a decision raced it through the relay (the request was not sent).
          aborted: { resolution: 'expired', decision: 'rejected' },
          answered: decided,
          shown() {
            const preview = approvalPayloadPreview(request.payload);
            answers.emit(
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
          },
          async ended({ resolution }) {
            // The decision stands even when the grant cannot be written: it may be lost.
            if (resolution === 'approved_for_session') {
              await relay.grant(turn.chatId, grantsOf(request)).catch(() => undefined);
            }
            answers.emit(
              { type: 'approval-resolved', approvalId: request.approvalId, resolution },
              toolCallId,
            );
          },
        });
        return ending.decision;
      },
    };
    hub.#turns.set(turn.chatId, broker);
    return {
      broker,
      timeoutMs: this.timeoutMs,
      sessionId: turn.chatId,
      attach: answers.attach,
      close() {
        if (hub.#turns.get(turn.chatId) === broker) hub.#turns.delete(turn.chatId);
        answers.close({ resolution: 'rejected', decision: 'rejected' });
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
    if (!(await this.#answers.relay.decide(userId, approvalId, decision))) {
      throw notFoundError(
        'path.approvalId',
        'no approval of yours with this id is waiting (it may have expired or been decided).',
      );
    }
    return decision;
  }
}
