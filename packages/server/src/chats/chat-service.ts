import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ChatFile, CitedDocument } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { Chat, ChatTurnRecord, Persona, StoredChatMessage } from '@toolbus/storage';
import type { TurnApprovals } from '../approvals/approval-hub.ts';
import { ownsRow, type Principal } from '../http/principal.ts';
import { ServerError } from '../http/server-error.ts';
import type { TurnDelivery, TurnJob, TurnRequest } from '../scale-out/turn-queue.ts';
import { type AssembledTools, assemblePersonaTools } from './assemble-persona-tools.ts';
import type { ChatServiceDependencies } from './chat-service-dependencies.ts';
import { findPersona, prepareTurn } from './prepared-turn.ts';
import { runQueuedTurn } from './run-queued-turn.ts';
import { runTurnHere } from './run-turn-here.ts';
import { turnCitations } from './turn-citations.ts';
import { NOT_QUEUED_TURN_REASON } from './turn-runner.ts';

export type { ChatServiceDependencies } from './chat-service-dependencies.ts';

/** A turn as read back, with the documents its answer cited. */
export interface ChatTurnView extends ChatTurnRecord {
  readonly citations: readonly Omit<CitedDocument, 'content'>[];
}

/** A chat with its history and turns. */
export interface ChatDetail extends Chat {
  readonly messages: readonly StoredChatMessage[];
  readonly turns: readonly ChatTurnView[];
}

/** What starting a turn takes (validated request fields). */
export type SendMessageInput = TurnRequest;

/** A turn that was started (or queued): where its packets stream from. */
export interface StartedTurn {
  readonly chatId: string;
  readonly index: number;
}

/**
 * The chat operations, as typed functions over the caller: the HTTP routes, the MCP endpoint and any other front
 * end call these. A chat of another user is `not_found` (never `forbidden`: its existence is not revealed).
 */
export class ChatService {
  readonly #deps: ChatServiceDependencies;

  constructor(dependencies: ChatServiceDependencies) {
    this.#deps = dependencies;
  }

  /** Creates a chat of the caller. */
  async create(principal: Principal, input: { title?: string | undefined; personaId?: string | undefined }) {
    if (input.personaId !== undefined) await findPersona(this.#deps, input.personaId, 'body.personaId');
    return this.#deps.storage.chats.create({
      userId: principal.user.id,
      organizationId: principal.organization.id,
      ...omitUndefined({ title: input.title, personaId: input.personaId }),
    });
  }

  /** The caller's chats, most recent first. */
  async list(principal: Principal): Promise<readonly Chat[]> {
    return (await this.#deps.storage.chats.listForUser(principal.user.id)).filter((chat) =>
      ownsRow(principal, chat),
    );
  }

  /** The caller's chat, or `not_found` naming `field` (where the request named the chat). */
  async require(principal: Principal, chatId: string, field = 'path.chatId'): Promise<Chat> {
    const chat = await this.#deps.storage.chats.get(chatId);
    if (!chat || !ownsRow(principal, chat)) {
      throw new ServerError({
        code: 'not_found',
        field,
        message: `${field}: no chat ${JSON.stringify(chatId)} of yours.`,
      });
    }
    return chat;
  }

  /** A chat with its messages (tool calls, results and files included) and its turns with their citations. */
  async read(principal: Principal, chatId: string): Promise<ChatDetail> {
    const chat = await this.require(principal, chatId);
    const [messages, turns] = await Promise.all([
      this.#deps.storage.chats.listMessages(chat.id),
      this.#deps.storage.chats.listTurns(chat.id),
    ]);
    const views: ChatTurnView[] = [];
    for (const turn of turns)
      views.push({
        ...turn,
        citations: await turnCitations(this.#deps.storage, { chatId: chat.id, turn: turn.index }),
      });
    return { ...chat, messages, turns: views };
  }

  async rename(principal: Principal, chatId: string, title: string): Promise<Chat> {
    await this.require(principal, chatId);
    return this.#deps.storage.chats.rename(chatId, title);
  }

  /** Deletes a chat; a running turn of it is stopped first. */
  async delete(principal: Principal, chatId: string): Promise<void> {
    await this.require(principal, chatId);
    for (const turn of await this.#deps.storage.chats.listTurns(chatId)) {
      if (turn.status === 'running') await this.#deps.runner.stopAnywhere(chatId, turn.index);
    }
    await this.#deps.storage.chats.delete(chatId);
  }

  /** The turns of the caller's chat, in order. */
  async turnsOf(principal: Principal, chatId: string): Promise<readonly ChatTurnRecord[]> {
    await this.require(principal, chatId);
    return this.#deps.storage.chats.listTurns(chatId);
  }

  /** The caller's turn, or `not_found`. */
  async requireTurn(principal: Principal, chatId: string, turn: number): Promise<ChatTurnRecord> {
    await this.require(principal, chatId);
    const record = await this.#deps.storage.chats.getTurn({ chatId, turn });
    if (!record)
      throw new ServerError({
        code: 'not_found',
        field: 'path.turn',
        message: `path.turn: this chat has no turn ${turn}.`,
      });
    return record;
  }

  /** Stops a running turn, on whichever replica runs it; false when it already ended. */
  async stop(principal: Principal, chatId: string, turn: number): Promise<boolean> {
    await this.requireTurn(principal, chatId, turn);
    return this.#deps.runner.stopAnywhere(chatId, turn);
  }

  /**
   * Starts a turn that runs detached from the caller: its persona's tools (narrowed to `tools`), the files (each
   * must be the caller's), the model (the default or an allowed one). Resolves once the turn runs, or, with a
   * turn queue, once it is recorded and queued for a worker replica.
   */
  async send(principal: Principal, chatId: string, input: SendMessageInput): Promise<StartedTurn> {
    const deps = this.#deps;
    const chat = await this.require(principal, chatId);
    const prepared = await prepareTurn(deps, { principal, chat, input });
    const slot = await deps.runner.acquireSlot(principal.user.id, deps.concurrentTurnsPerUser);
    if (slot === undefined) {
      throw new ServerError({
        code: 'rate_limited',
        retryAfterSeconds: 5,
        message: `You already run ${deps.concurrentTurnsPerUser} turns at once (the limit); wait for one to end or stop one.`,
      });
    }
    try {
      if (deps.queue) {
        const record = await deps.storage.chats.startTurn({
          chatId: chat.id,
          kind: input.research ? 'research' : 'chat',
          input: [prepared.userMessage],
        });
        try {
          await deps.queue.enqueue({
            chatId: chat.id,
            turn: record.index,
            userId: principal.user.id,
            slot,
            request: omitUndefined(input),
          });
        } catch (error) {
          // Recorded but not queued: no worker will run it. Closed now with the reason (should this fail too,
          // the abandoned-turn sweep of a worker replica closes it later).
          await deps.runner.closeInterrupted(record, NOT_QUEUED_TURN_REASON).catch(() => false);
          throw new ServerError({
            code: 'unavailable',
            retryAfterSeconds: 5,
            message: `${NOT_QUEUED_TURN_REASON} Turn ${record.index} of this chat was closed with this reason.`,
            cause: error,
          });
        }
        return { chatId: chat.id, index: record.index };
      }
      return await runTurnHere(deps, { principal, chat, prepared, input, placement: { slot } });
    } catch (error) {
      await deps.runner.releaseSlot(principal.user.id, slot);
      throw error;
    }
  }

  /** Runs a queued turn on this worker replica (see {@link runQueuedTurn}). */
  async runQueued(job: TurnJob, delivery: TurnDelivery): Promise<void> {
    return runQueuedTurn(this.#deps, { job, delivery });
  }

  /**
   * Assembles a persona's tools for the caller (built-ins, OpenAPI, MCP, with the user's memory and search
   * settings); `cleanup` closes what the assembly opened. Used by turns and by the MCP endpoint.
   */
  async assemble(
    principal: Principal,
    persona: Persona,
    options: {
      readonly model?: LanguageModelV4;
      readonly files?: readonly ChatFile[];
      /** The turn's approvals; without them (the MCP endpoint) an ASK action is refused at once. */
      readonly approvals?: TurnApprovals;
    } = {},
  ): Promise<AssembledTools> {
    return assemblePersonaTools(this.#deps, { principal, persona, options });
  }

  /** A persona by id, or the default one; `invalid_request` naming `field` when there is none. */
  async persona(id: string | undefined, field: string): Promise<Persona> {
    return findPersona(this.#deps, id, field);
  }
}
