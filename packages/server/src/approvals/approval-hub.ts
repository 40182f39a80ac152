import type { ApprovalBroker, ApprovalDecision, ApprovalRequest } from '@toolbus/egress';
import { defaultApprovalTimeoutMs } from '@toolbus/egress';
import { type ApprovalResolution, omitUndefined, type PacketObject } from '@toolbus/spec';
import { ServerError } from '../http/server-error.ts';
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
  readonly userId: string;
  settle(decision: ApprovalDecision): void;
}

/**
 * The server's approval broker. An ASK request parks here, an `approval-request` packet goes into the turn's
 * stream, and the chat's owner decides with {@link ApprovalHub.decide} (only the owner: for anyone else the
 * approval does not exist). An `approval-resolved` packet follows every end: decided, expired, or withdrawn.
 * Session grants are per chat and kept in memory.
 */
export class ApprovalHub {
  readonly timeoutMs: number;
  readonly #pending = new Map<string, Pending>();
  readonly #grants = new Set<string>();
  readonly #now: () => number;

  constructor(options: { readonly timeoutMs?: number; readonly now?: () => number } = {}) {
    this.timeoutMs = options.timeoutMs ?? defaultApprovalTimeoutMs;
    this.#now = options.now ?? Date.now;
  }

  /** Approvals waiting now (for a status line or a drain). */
  get pending(): number {
    return this.#pending.size;
  }

  /** The approvals of one turn of `chatId`, owned by `userId`. */
  forTurn(turn: { readonly chatId: string; readonly userId: string }): TurnApprovals {
    const hub = this;
    let sink: ApprovalPacketSink | undefined;
    const early: [PacketObject, string | undefined][] = [];
    const emit: ApprovalPacketSink = (packet, toolCallId) => {
      if (sink === undefined) early.push([packet, toolCallId]);
      else sink(packet, toolCallId);
    };
    const mine = new Set<string>();
    let closed = false;
    const grantKey = (request: ApprovalRequest, action: string) =>
      [turn.chatId, request.target.kind, request.target.id, action].join('\u0000');
    const broker: ApprovalBroker = {
      hasGrant: (request) =>
        request.identity.userId === turn.userId &&
        request.actions.every((action) => hub.#grants.has(grantKey(request, action.type))),
      requestApproval(request, signal) {
        // Fail closed: a sandbox of another user (or of nobody) cannot ask in this chat.
        if (closed || request.identity.userId !== turn.userId) return Promise.resolve('rejected');
        const toolCallId = request.identity.tag;
        return new Promise<ApprovalDecision>((resolve) => {
          let done = false;
          const finish = (resolution: ApprovalResolution, decision: ApprovalDecision) => {
            if (done) return;
            done = true;
            hub.#pending.delete(request.approvalId);
            mine.delete(request.approvalId);
            signal.removeEventListener('abort', onAbort);
            if (resolution === 'approved_for_session') {
              for (const action of request.actions) hub.#grants.add(grantKey(request, action.type));
            }
            emit({ type: 'approval-resolved', approvalId: request.approvalId, resolution }, toolCallId);
            resolve(decision);
          };
          const onAbort = () => finish('expired', 'rejected');
          hub.#pending.set(request.approvalId, {
            userId: turn.userId,
            settle: (decision) => finish(decision, decision),
          });
          mine.add(request.approvalId);
          signal.addEventListener('abort', onAbort, { once: true });
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
        for (const id of [...mine]) hub.#pending.get(id)?.settle('rejected');
      },
    };
  }

  /**
   * Decides a waiting approval for its owner; `not_found` when it is not waiting or belongs to someone else (an
   * approval id proves nothing, so another user's is indistinguishable from one that never existed).
   */
  decide(userId: string, approvalId: string, choice: ApprovalChoice): ApprovalResolution {
    const pending = this.#pending.get(approvalId);
    if (pending === undefined || pending.userId !== userId) {
      throw new ServerError({
        code: 'not_found',
        message: 'No approval of yours with this id is waiting (it may have expired or been decided).',
      });
    }
    const decision: ApprovalDecision =
      choice === 'approve' ? 'approved' : choice === 'allow-session' ? 'approved_for_session' : 'rejected';
    pending.settle(decision);
    return decision;
  }
}
