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
} from '@toolbus/spec';
import { notFoundError, ServerError } from '../http/server-error.ts';
import { type ApprovalRelay, InProcessApprovalRelay } from '../scale-out/approval-relay.ts';
import { type ApprovalPacketSink, RelayedAnswers } from '../scale-out/relayed-answers.ts';

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

/** How a wait ended: the card's resolution and what the tool's server is told. */
interface Ending {
  readonly resolution: ElicitationResolution;
  readonly answer: ElicitationAnswer;
}

const cancelled: Ending = { resolution: 'cancel', answer: { action: 'cancel' } };

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
  readonly #answers: RelayedAnswers<string, Ending>;
  /** Questions asked in this process, to check an answer's content before it is accepted. */
  readonly #questions = new Map<
    string,
    { readonly chatId: string; readonly question: ElicitationQuestion }
  >();
  readonly #now: () => number;

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
    this.#answers = new RelayedAnswers({
      relay: options.relay ?? new InProcessApprovalRelay<string>(omitUndefined({ now: options.now })),
    });
  }

  /** Questions waiting in this process now. */
  get pending(): number {
    return this.#answers.pending;
  }

  /** Starts receiving answers from the relay (once; a question waits for it before it is shown). */
  listen(): Promise<void> {
    return this.#answers.listen();
  }

  close(): Promise<void> {
    return this.#answers.close();
  }

  /** The elicitations of one turn of `chatId`, owned by `userId`. */
  forTurn(turn: { readonly chatId: string; readonly userId: string }): TurnElicitations {
    const hub = this;
    const answers = this.#answers.forTurn();
    const ask: ElicitationAsker = async (question, { toolCallId, signal }) => {
      if (answers.closed || signal.aborted) return { action: 'cancel' };
      const elicitationId = randomUUID();
      // Checked again here: an answer sent to another replica was not checked against the schema there.
      const answered = (answer: ElicitationAnswer): Ending => {
        const checked = checkedAnswer(question, answer);
        return { resolution: checked.action, answer: checked };
      };
      const ending = await answers.wait({
        id: elicitationId,
        ownerKey: ownerKey(turn.userId, turn.chatId),
        ttlMs: hub.timeoutMs + relayGraceMs,
        signal,
        // The call ended first (cancelled turn, call timeout): nothing is sent, the server learns it from the call.
        aborted: cancelled,
        timeout: {
          ms: hub.timeoutMs,
          ending: { resolution: 'expired', answer: { action: 'cancel', expired: true } },
        },
        answered(encoded) {
          const answer = decodeAnswer(encoded);
          return answer === undefined ? undefined : answered(answer);
        },
        shown() {
          hub.#questions.set(elicitationId, { chatId: turn.chatId, question });
          answers.emit(
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
        },
        ended({ resolution }) {
          hub.#questions.delete(elicitationId);
          answers.emit({ type: 'elicitation-resolved', elicitationId, resolution }, toolCallId);
        },
      });
      return ending.answer;
    };
    return {
      ask,
      attach: answers.attach,
      close: () => answers.close(cancelled),
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
    if (!(await this.#answers.relay.decide(ownerKey(userId, chatId), elicitationId, JSON.stringify(sent)))) {
      throw notFoundError(
        'path.elicitationId',
        'no question of yours with this id is waiting in this chat (it may have expired or been answered).',
      );
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
