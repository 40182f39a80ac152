import type { PacketObject } from '@toolbus/spec';
import type { ApprovalRelay } from './approval-relay.ts';

/** Where a turn's question packets go: the turn's stream, at the tool call that asks when known. */
export type ApprovalPacketSink = (packet: PacketObject, toolCallId: string | undefined) => void;

/** One question parked until its answer: what {@link TurnAnswers.wait} is given. */
export interface AnswerWait<D extends string, E> {
  /** The question's id: what the relay keys the answer by. */
  readonly id: string;
  /** Who may answer (the relay refuses anyone else on every replica). */
  readonly ownerKey: string;
  /** How long the relay keeps the question (longer than the wait: a replica that died never closes it). */
  readonly ttlMs: number;
  /** Ends the wait with {@link aborted} (the asker gave up). */
  readonly signal: AbortSignal;
  readonly aborted: E;
  /** The wait's own bound, if it has one (else only the signal bounds it). */
  readonly timeout?: { readonly ms: number; readonly ending: E };
  /** The ending an answer from the relay makes; undefined for one that is not an answer (it is ignored). */
  answered(decision: D): E | undefined;
  /** Called once the question is parked: shows it (an answer may come from then on). */
  shown(): void;
  /** Called once, after the relay closed the question, before the waiter gets `ending`. */
  ended(ending: E): Promise<void> | void;
}

/** The questions of one turn: its packets (held until the stream is attached) and its waits. */
export interface TurnAnswers<D extends string, E> {
  /** True once {@link close} was called: new questions should not be asked. */
  readonly closed: boolean;
  /** Sends a packet to the turn's stream (kept until {@link attach}). */
  readonly emit: ApprovalPacketSink;
  attach(sink: ApprovalPacketSink): void;
  /** Parks a question until its first ending: an answer, the signal, the timeout or {@link close}. */
  wait(wait: AnswerWait<D, E>): Promise<E>;
  /** The turn ended: every question still waiting ends with `ending`. */
  close(ending: E): void;
}

interface Pending<D extends string, E> {
  answer(decision: D): void;
  end(ending: E): void;
}

/**
 * The one owner of "a question waits for its owner's answer, once, with a timeout, across replicas": egress
 * approvals ({@link ApprovalHub}) and MCP elicitations ({@link ElicitationHub}) both park here. A question is opened
 * in the {@link ApprovalRelay} (owner check, first answer wins), answers from any replica arrive through its
 * subscription, and a relay whose messages can be lost is re-read every `recheckIntervalMs`.
 */
export class RelayedAnswers<D extends string, E> {
  readonly #pending = new Map<string, Pending<D, E>>();
  readonly #relay: ApprovalRelay<D>;
  readonly #alsoListen: (() => Promise<() => Promise<void>>) | undefined;
  #listening: Promise<() => Promise<void>> | undefined;

  constructor(options: {
    readonly relay: ApprovalRelay<D>;
    /** Started with the relay's subscription, stopped with it (a failure stops the subscription too). */
    readonly alsoListen?: () => Promise<() => Promise<void>>;
  }) {
    this.#relay = options.relay;
    this.#alsoListen = options.alsoListen;
  }

  get relay(): ApprovalRelay<D> {
    return this.#relay;
  }

  /** Questions waiting in this process now. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Starts receiving answers from the relay (once; a question waits for it before it is shown). */
  listen(): Promise<void> {
    this.#listening ??= this.#subscribe();
    return this.#listening.then(() => undefined);
  }

  async #subscribe(): Promise<() => Promise<void>> {
    const answers = await this.#relay.subscribe((id, decision) => this.#pending.get(id)?.answer(decision));
    const also = await this.#alsoListen?.().catch(async (error: unknown) => {
      await answers();
      throw error;
    });
    return async () => {
      await also?.();
      await answers();
    };
  }

  /** Stops receiving answers. */
  async close(): Promise<void> {
    const listening = this.#listening;
    this.#listening = undefined;
    if (listening !== undefined) await (await listening)();
  }

  /** The questions of one turn. */
  forTurn(): TurnAnswers<D, E> {
    const answers = this;
    let sink: ApprovalPacketSink | undefined;
    const early: [PacketObject, string | undefined][] = [];
    const mine = new Set<string>();
    let closed = false;
    return {
      get closed() {
        return closed;
      },
      emit(packet, toolCallId) {
        if (sink === undefined) early.push([packet, toolCallId]);
        else sink(packet, toolCallId);
      },
      attach(next) {
        sink = next;
        for (const [packet, toolCallId] of early.splice(0)) next(packet, toolCallId);
      },
      async wait(wait) {
        await answers.listen();
        await answers.#relay.open({ approvalId: wait.id, userId: wait.ownerKey, ttlMs: wait.ttlMs });
        mine.add(wait.id);
        try {
          return await answers.#park(wait);
        } finally {
          mine.delete(wait.id);
        }
      },
      close(ending) {
        closed = true;
        for (const id of [...mine]) answers.#pending.get(id)?.end(ending);
      },
    };
  }

  #park(wait: AnswerWait<D, E>): Promise<E> {
    const relay = this.#relay;
    return new Promise<E>((resolve) => {
      let done = false;
      let recheck: NodeJS.Timeout | undefined;
      let expiry: NodeJS.Timeout | undefined;
      const end = async (ending: E) => {
        if (done) return;
        done = true;
        this.#pending.delete(wait.id);
        clearTimeout(expiry);
        clearInterval(recheck);
        wait.signal.removeEventListener('abort', onAbort);
        // A relay failure must not leave the asker waiting: the answer stands.
        await relay.close(wait.id).catch(() => undefined);
        await wait.ended(ending);
        resolve(ending);
      };
      const answer = (decision: D) => {
        const ending = wait.answered(decision);
        if (ending !== undefined) void end(ending);
      };
      const onAbort = () => void end(wait.aborted);
      this.#pending.set(wait.id, { answer, end: (ending) => void end(ending) });
      wait.signal.addEventListener('abort', onAbort, { once: true });
      const timeout = wait.timeout;
      if (timeout !== undefined) {
        expiry = setTimeout(() => void end(timeout.ending), timeout.ms);
        expiry.unref();
      }
      if (relay.recheckIntervalMs !== undefined) {
        recheck = setInterval(() => {
          relay.decision(wait.id).then(
            (decision) => {
              if (decision !== undefined) answer(decision);
            },
            () => undefined,
          );
        }, relay.recheckIntervalMs);
        recheck.unref();
      }
      wait.shown();
      if (wait.signal.aborted) onAbort();
    });
  }
}
