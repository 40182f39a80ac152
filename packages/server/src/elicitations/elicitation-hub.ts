import { randomUUID } from 'node:crypto';
import {
  checkElicitationContent,
  defaultElicitationTimeoutMs,
  type ElicitationAnswer,
  type ElicitationAsker,
  type ElicitationQuestion,
  type ElicitationResolution,
  isPlainObject,
  omitUndefined,
  type PacketObject,
} from '@toolbus/spec';
import type { ApprovalPacketSink } from '../approvals/approval-hub.ts';
import { ServerError } from '../http/server-error.ts';
import { type ApprovalRelay, InProcessApprovalRelay } from '../scale-out/approval-relay.ts';

/** How much longer than the wait the relay keeps a question (a replica that died never closes it). */
const relayGraceMs = 30_000;

/** The MCP elicitations of one turn: how its tools ask, and where the questions are shown. */
export interface TurnElicitations {
  /** Given to the turn's tools as `context.elicit`. */
  readonly ask: ElicitationAsker;
  /** Connects the turn's stream once the turn runs (questions before that wait for it). */
  attach(sink: ApprovalPacketSink): void;
  /** The turn ended: what still waits is cancelled. */
  close(): void;
}

interface Pending {
  settle(answer: ElicitationAnswer): void;
}

/**
 * The one owner of "a tool's MCP server asks the user something" in the server. A question parks here, an
 * `elicitation-request` packet goes into the turn's stream, and the chat's owner answers with
 * `POST /v1/chats/{chatId}/elicitations/{elicitationId}` ({@link ElicitationHub.answer}). The wait is bounded by
 * {@link ElicitationHub.timeoutMs}: then the server gets `cancel` and the tool's result says the user did not
 * answer. An `elicitation-resolved` packet follows every end. Answers travel through the same relay as egress
 * approvals (owner check, first answer wins, every replica), keyed by the chat's owner and the chat, so an answer
 * sent to any replica reaches the one whose tool call waits.
 */
export class ElicitationHub {
  readonly timeoutMs: number;
  readonly #pending = new Map<string, Pending>();
  /** Questions asked in this process, to check an answer's content before it is accepted. */
  readonly #questions = new Map<
    string,
    { readonly chatId: string; readonly question: ElicitationQuestion }
  >();
  readonly #relay: ApprovalRelay<string>;
  readonly #now: () => number;
  #listening: Promise<() => Promise<void>> | undefined;

  constructor(
    options: {
      readonly timeoutMs?: number;
      readonly now?: () => number;
      /** Where answers go (default: this process only). */
      readonly relay?: ApprovalRelay<string>;
    } = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? defaultElicitationTimeoutMs;
    this.#now = options.now ?? Date.now;
    this.#relay = options.relay ?? new InProcessApprovalRelay<string>(omitUndefined({ now: options.now }));
  }

  /** Questions waiting in this process now. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Starts receiving answers from the relay (once; a question waits for it before it is shown). */
  listen(): Promise<void> {
    this.#listening ??= this.#relay.subscribe((id, encoded) => {
      const answer = decodeAnswer(encoded);
      if (answer !== undefined) this.#pending.get(id)?.settle(answer);
    });
    return this.#listening.then(() => undefined);
  }

  async close(): Promise<void> {
    const listening = this.#listening;
    this.#listening = undefined;
    if (listening !== undefined) await (await listening)();
  }

  /** The elicitations of one turn of `chatId`, owned by `userId`. */
  forTurn(turn: { readonly chatId: string; readonly userId: string }): TurnElicitations {
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
    const ask: ElicitationAsker = async (question, { toolCallId, signal }) => {
      if (closed || signal.aborted) return { action: 'cancel' };
      const elicitationId = randomUUID();
      await hub.listen();
      await relay.open({
        approvalId: elicitationId,
        userId: ownerKey(turn.userId, turn.chatId),
        ttlMs: hub.timeoutMs + relayGraceMs,
      });
      return new Promise<ElicitationAnswer>((resolve) => {
        let done = false;
        const finish = (resolution: ElicitationResolution, answer: ElicitationAnswer) => {
          if (done) return;
          done = true;
          hub.#pending.delete(elicitationId);
          hub.#questions.delete(elicitationId);
          mine.delete(elicitationId);
          clearTimeout(expiry);
          clearInterval(recheck);
          signal.removeEventListener('abort', onAbort);
          void relay.close(elicitationId).catch(() => undefined);
          emit({ type: 'elicitation-resolved', elicitationId, resolution }, toolCallId);
          resolve(answer);
        };
        // The call ended first (cancelled turn, call timeout): nothing is sent, the server learns it from the call.
        const onAbort = () => finish('cancel', { action: 'cancel' });
        const expiry = setTimeout(
          () => finish('expired', { action: 'cancel', expired: true }),
          hub.timeoutMs,
        );
        expiry.unref();
        const settle = (answer: ElicitationAnswer) => {
          // Checked again here: an answer sent to another replica was not checked against the schema there.
          const checked = checkedAnswer(question, answer);
          finish(checked.action, checked);
        };
        hub.#pending.set(elicitationId, { settle });
        hub.#questions.set(elicitationId, { chatId: turn.chatId, question });
        mine.add(elicitationId);
        signal.addEventListener('abort', onAbort, { once: true });
        const recheck =
          relay.recheckIntervalMs === undefined
            ? undefined
            : setInterval(() => {
                relay.decision(elicitationId).then(
                  (encoded) => {
                    const answer = encoded === undefined ? undefined : decodeAnswer(encoded);
                    if (answer !== undefined) settle(answer);
                  },
                  () => undefined,
                );
              }, relay.recheckIntervalMs);
        recheck?.unref();
        emit(
          {
            type: 'elicitation-request',
            elicitationId,
            ...omitUndefined({ toolCallId }),
            serverName: question.serverName,
            mode: question.mode,
            message: question.message,
            ...(question.mode === 'form'
              ? { requestedSchema: question.requestedSchema }
              : { url: question.url }),
            expiresAt: new Date(hub.#now() + hub.timeoutMs).toISOString(),
          },
          toolCallId,
        );
      });
    };
    return {
      ask,
      attach(next) {
        sink = next;
        for (const [packet, toolCallId] of early.splice(0)) next(packet, toolCallId);
      },
      close() {
        closed = true;
        for (const id of [...mine]) hub.#pending.get(id)?.settle({ action: 'cancel' });
      },
    };
  }

  /**
   * Answers a waiting question of `chatId` for its owner, wherever its turn runs. Accepted form content is checked
   * against the requested schema (defaults fill fields left out) when the question was asked here; `not_found`
   * when no question with this id waits in this chat of this user (another user's is indistinguishable from one
   * that never existed).
   */
  async answer(
    userId: string,
    chatId: string,
    elicitationId: string,
    answer: ElicitationAnswer,
  ): Promise<ElicitationAnswer['action']> {
    const local = this.#questions.get(elicitationId);
    let sent = answer;
    if (local !== undefined && local.chatId === chatId && answer.action === 'accept') {
      if (local.question.mode === 'form') {
        const checked = checkElicitationContent(local.question.requestedSchema, answer.content ?? {});
        if (!checked.ok) {
          throw new ServerError({
            code: 'invalid_request',
            field: 'body.content',
            message: `body.content: the answer does not fit the server's form: ${checked.problems.join('; ')}.`,
          });
        }
        sent = { action: 'accept', content: checked.content };
      } else {
        sent = { action: 'accept' };
      }
    }
    if (!(await this.#relay.decide(ownerKey(userId, chatId), elicitationId, JSON.stringify(sent)))) {
      throw new ServerError({
        code: 'not_found',
        field: 'path.elicitationId',
        message:
          'path.elicitationId: no question of yours with this id is waiting in this chat (it may have expired or been answered).',
      });
    }
    return sent.action;
  }
}

/** Who may answer: the chat's owner, in that chat (the relay checks it on every replica). */
function ownerKey(userId: string, chatId: string): string {
  return `${userId}\u0000${chatId}`;
}

/** An answer as it fits its question: form content checked (refused content cancels), URL mode without content. */
function checkedAnswer(question: ElicitationQuestion, answer: ElicitationAnswer): ElicitationAnswer {
  if (answer.action !== 'accept') return answer;
  if (question.mode === 'url') return { action: 'accept' };
  const checked = checkElicitationContent(question.requestedSchema, answer.content ?? {});
  return checked.ok ? { action: 'accept', content: checked.content } : { action: 'cancel' };
}

/** An answer read back from the relay; undefined for anything else. */
function decodeAnswer(encoded: string): ElicitationAnswer | undefined {
  try {
    const value: unknown = JSON.parse(encoded);
    if (!isPlainObject(value)) return undefined;
    if (value.action === 'decline' || value.action === 'cancel') return { action: value.action };
    if (value.action !== 'accept') return undefined;
    return isPlainObject(value.content)
      ? { action: 'accept', content: value.content as Record<string, string> }
      : { action: 'accept' };
  } catch {
    return undefined;
  }
}
