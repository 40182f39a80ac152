import type { ApprovalBroker, ApprovalDecision, ApprovalRequest } from '@toolbus/egress';
import { ServerError } from '../http/server-error.ts';

/**
 * What a replica answers for one ask: undefined when no turn of the ask's chat runs here (another replica's, or
 * nobody's), else the wait for the chat owner's decision, which must end when `signal` aborts (the proxy gave up).
 */
export type ApprovalAskHandler = (
  request: ApprovalRequest,
) => ((signal: AbortSignal) => Promise<ApprovalDecision>) | undefined;

/**
 * Carries the ASK requests of a standalone egress proxy (`toolbus egress serve`, its own process or pod) to the
 * replica running the turn of the request's chat (`request.sessionId`), which shows the approval card as it does
 * for its own proxy, and carries the decision back. Exactly one replica takes an ask; an ask that no replica takes
 * within a short window fails (no turn of that chat is running, so nobody could see the card).
 */
export interface ApprovalAsks {
  /** (Replica) Takes the asks `handler` accepts until the returned function is called. */
  serve(handler: ApprovalAskHandler): Promise<() => Promise<void>>;
  /**
   * (Egress service) The decision of whoever runs the chat's turn; aborting `signal` withdraws the question (the
   * card then says expired). Rejects when no replica takes the ask.
   */
  ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}

/**
 * The broker of a standalone egress proxy: every ASK request goes to the replica running the chat's turn, which
 * checks the chat's session grants itself (they are the replica's to interpret), so this broker never claims one.
 */
export function approvalBrokerOverAsks(asks: ApprovalAsks): ApprovalBroker {
  return {
    hasGrant: () => false,
    requestApproval: (request, signal) => asks.ask(request, signal),
  };
}

/** Asks inside one process (tests, and a server embedding its own proxy service): the first handler that accepts. */
export class InProcessApprovalAsks implements ApprovalAsks {
  readonly #handlers = new Set<ApprovalAskHandler>();

  async serve(handler: ApprovalAskHandler): Promise<() => Promise<void>> {
    this.#handlers.add(handler);
    return async () => {
      this.#handlers.delete(handler);
    };
  }

  async ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    for (const handler of this.#handlers) {
      const wait = handler(request);
      if (wait !== undefined) return wait(signal);
    }
    throw noTurnForAsk(request.sessionId);
  }
}

/** The failure of an ask no replica took: no turn of the chat runs, so no card could be shown. */
export function noTurnForAsk(chatId: string): ServerError {
  return new ServerError({
    code: 'unavailable',
    message: `No turn of chat ${chatId} is running on any replica: nobody can see the approval, so it is refused.`,
  });
}
