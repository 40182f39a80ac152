import type { LanguageModelV4 } from '@ai-sdk/provider';
import { constructTools, type ToolAssemblyCache } from '@toolbus/assembly';
import type { ChatTurn } from '@toolbus/core';
import type { McpRefreshLock } from '@toolbus/mcp';
import {
  DEFAULT_DEEP_RESEARCH_PROMPTS,
  type DeepResearchPrompts,
  parseDeepResearchCheckpoint,
  runTurn,
} from '@toolbus/research';
import type { ChatFile, ChatMessage, CitedDocument, Packet, Tool, WarningLogger } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { Chat, ChatTurnRecord, Persona, Storage, StoredChatMessage } from '@toolbus/storage';
import { type DocumentSearchIndex, withSavedMemories } from '@toolbus/tools';
import type { ApprovalHub, TurnApprovals } from '../approvals/approval-hub.ts';
import { resolveOrganization } from '../auth/organization-service.ts';
import type { TurnToolOptions } from '../built-in-tools/turn-tool-options.ts';
import { ownsRow, type Principal } from '../http/principal.ts';
import { ServerError } from '../http/server-error.ts';
import { startTurnTelemetry } from '../observability/turn-telemetry.ts';
import type { TurnDelivery, TurnJob, TurnQueue, TurnRequest } from '../scale-out/turn-queue.ts';
import type { BuiltInToolContext, ServerOptions } from '../server-options.ts';
import { titleNewChat } from './chat-titles.ts';
import type { LiveTurn } from './live-turn.ts';
import {
  NOT_QUEUED_TURN_REASON,
  type StartTurnOptions,
  type TurnRunner,
  WORKER_LOST_TURN_REASON,
} from './turn-runner.ts';

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

/** What a turn runs with, resolved from a request before anything is recorded. */
interface PreparedTurn {
  readonly persona: Persona;
  readonly files: readonly ChatFile[];
  readonly modelName: string;
  readonly model: LanguageModelV4;
  readonly userMessage: ChatMessage;
}

/** What the chat operations need from the server. */
export interface ChatServiceDependencies {
  readonly storage: Storage;
  readonly runner: TurnRunner;
  /** Durable turns: queued for a worker replica instead of run in this process. */
  readonly queue?: TurnQueue | undefined;
  readonly defaultModel: string;
  readonly allowedModels: ReadonlySet<string>;
  readonly resolveModel: (model: string) => LanguageModelV4;
  readonly builtInToolFactories: NonNullable<ServerOptions['builtInToolFactories']>;
  /** A chat turn's tool search limits and recovery dialects for its model (the deployment's settings). */
  readonly turnToolOptions?: (model: string) => TurnToolOptions;
  readonly fetch: typeof fetch;
  /** Where assembly reports what it left out (a skipped row, a dropped credential header), by name only. */
  readonly logger?: WarningLogger;
  readonly assemblyCache?: ToolAssemblyCache;
  readonly systemPrompt: string;
  readonly defaultPersona: () => Promise<Persona | undefined>;
  readonly concurrentTurnsPerUser: number;
  readonly maxCycles?: number;
  /** Put tool arguments and results on spans (default off). */
  readonly recordToolContent?: boolean;
  /** The OAuth callback URL OAuth MCP servers were connected with (their tokens are sent only with it set). */
  readonly mcpOAuthRedirectUrl?: string;
  /** Serialises MCP OAuth token refreshes across replicas (default: within this process). */
  readonly mcpOAuthRefreshLock?: McpRefreshLock;
  /** Where egress approvals of a turn's sandboxed code wait for the chat's owner. */
  readonly approvals?: ApprovalHub;
  /** The models' input window in tokens, which Deep Research checks before it runs. */
  readonly contextWindowTokens?: number;
  /** The document index; each turn's built-in tools get its organisation's view only. */
  readonly documentIndex?: DocumentSearchIndex;
  /** Title a new chat from its first exchange (chat-titles.ts). */
  readonly titleChats?: boolean;
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
    if (input.personaId !== undefined) await this.#persona(input.personaId, 'body.personaId');
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
    for (const turn of turns) views.push({ ...turn, citations: await this.#citations(chat.id, turn.index) });
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
    const prepared = await this.#prepare(principal, chat, input);
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
      return await this.#run(principal, chat, prepared, input, { slot });
    } catch (error) {
      await deps.runner.releaseSlot(principal.user.id, slot);
      throw error;
    }
  }

  /**
   * Runs a queued turn on this worker replica. A chat turn delivered again (its first worker died mid-turn) is
   * closed with a stop packet and the reason instead of being run again: it may have run tools that are not safe
   * to repeat, and its history says it was interrupted. A research turn delivered again resumes from its last
   * checkpoint: its agents only search and read, so the cycle in progress runs again (docs/scale-out.md).
   */
  async runQueued(job: TurnJob, delivery: TurnDelivery): Promise<void> {
    const deps = this.#deps;
    const record = await deps.storage.chats.getTurn({ chatId: job.chatId, turn: job.turn });
    if (record?.status !== 'running') {
      await deps.runner.releaseSlot(job.userId, job.slot);
      return;
    }
    const resume = delivery.redelivered && record.kind === 'research';
    if (delivery.redelivered && !resume) {
      await deps.runner.closeInterrupted(record, WORKER_LOST_TURN_REASON);
      await deps.runner.releaseSlot(job.userId, job.slot);
      return;
    }
    const user = await deps.storage.users.get(job.userId);
    const chat = await deps.storage.chats.get(job.chatId);
    if (!user || !chat) {
      await deps.runner.closeInterrupted(record, 'The chat or its user no longer exists.');
      await deps.runner.releaseSlot(job.userId, job.slot);
      return;
    }
    let live: LiveTurn;
    try {
      // The worker acts as the user, in the organisation the chat belongs to (refused if they left it since).
      const organization = await resolveOrganization(deps.storage, user, chat.organizationId);
      const principal: Principal = { user, role: user.role, scopes: ['chat'], via: 'session', organization };
      const prepared = await this.#prepare(principal, chat, job.request);
      live = await this.#run(principal, chat, prepared, job.request, {
        slot: job.slot,
        turn: job.turn,
        held: () => delivery.held(),
        ...(resume ? { resume: true } : {}),
      });
    } catch (error) {
      await deps.runner.closeInterrupted(
        record,
        `The turn could not start: ${error instanceof Error ? error.message : String(error)}`,
      );
      await deps.runner.releaseSlot(job.userId, job.slot);
      return;
    }
    const lost = () => live.controller.abort();
    delivery.signal.addEventListener('abort', lost, { once: true });
    await live.ended;
    delivery.signal.removeEventListener('abort', lost);
    if (record.kind === 'research') {
      // Ended here: its checkpoint is no longer needed. Still running: another replica took it over and goes on.
      const now = await deps.storage.chats.getTurn({ chatId: job.chatId, turn: job.turn });
      if (now?.status !== 'running') {
        await deps.storage.researchCheckpoints.delete({ chatId: job.chatId, turn: job.turn });
      }
    }
  }

  /** Checks a request and resolves what its turn runs with (persona, files, model), before anything is recorded. */
  async #prepare(principal: Principal, chat: Chat, input: TurnRequest): Promise<PreparedTurn> {
    const deps = this.#deps;
    const persona = await this.#persona(input.personaId ?? chat.personaId ?? undefined, 'body.personaId');
    const files = await this.#files(principal, input.fileIds ?? []);
    // An admin's `model` setting replaces the default when the server allows that model.
    const configured = await deps.storage.settings.get('model');
    const fallback =
      typeof configured === 'string' && deps.allowedModels.has(configured) ? configured : deps.defaultModel;
    const modelName = input.model ?? fallback;
    if (!deps.allowedModels.has(modelName)) {
      throw new ServerError({
        code: 'invalid_request',
        field: 'body.model',
        message: `body.model: "${modelName}" is not a model this server allows (${[...deps.allowedModels].join(', ')}).`,
      });
    }
    let model: LanguageModelV4;
    try {
      model = deps.resolveModel(modelName);
    } catch (error) {
      throw new ServerError({
        code: 'invalid_request',
        field: 'body.model',
        message: `body.model: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    const userMessage: ChatMessage = {
      role: 'user',
      content: input.content,
      ...(files.length > 0 ? { files } : {}),
    };
    return { persona, files, modelName, model, userMessage };
  }

  /** Assembles the tools and runs the turn here (recording it first unless `turn` names a recorded one). */
  async #run(
    principal: Principal,
    chat: Chat,
    prepared: PreparedTurn,
    input: TurnRequest,
    options: {
      readonly slot: string;
      readonly turn?: number;
      readonly held?: () => Promise<boolean>;
      /** The queued research turn's worker died: go on from its stored packets and last checkpoint. */
      readonly resume?: boolean;
    },
  ): Promise<LiveTurn> {
    const deps = this.#deps;
    const { persona, files, modelName, model, userMessage } = prepared;
    const approvals = deps.approvals?.forTurn({ chatId: chat.id, userId: principal.user.id });
    const { tools: assembled, cleanup } = await this.assemble(principal, persona, {
      model,
      files,
      ...omitUndefined({ approvals }),
    });
    try {
      let tools = assembled;
      if (input.tools) {
        const byName = new Map(tools.map((tool) => [tool.name, tool]));
        input.tools.forEach((name, index) => {
          if (!byName.has(name)) {
            throw new ServerError({
              code: 'invalid_request',
              field: `body.tools.${index}`,
              message: `body.tools.${index}: the persona has no tool "${name}" (it has: ${[...byName.keys()].join(', ') || 'none'}).`,
            });
          }
        });
        const wanted = new Set(input.tools);
        tools = tools.filter((tool) => wanted.has(tool.name));
      }
      const history = (await deps.storage.chats.listMessages(chat.id)).map((stored) => stored.message);
      // A research turn that ended with clarifying questions is answered by this message: go straight to the plan.
      const previous = input.research
        ? (await deps.storage.chats.listTurns(chat.id)).filter((turn) => turn.index !== options.turn).at(-1)
        : undefined;
      const answersClarification = previous?.kind === 'research' && previous.endReason === 'clarification';
      // Only a queued turn (held by this worker) checkpoints: only a queued turn is taken over when its worker dies.
      const queuedTurn = options.turn;
      const checkpoints = input.research && options.held !== undefined && queuedTurn !== undefined;
      const checkpoint =
        options.resume && queuedTurn !== undefined
          ? parseDeepResearchCheckpoint(
              await deps.storage.researchCheckpoints.get({ chatId: chat.id, turn: queuedTurn }),
            )
          : undefined;
      const maxCycles = input.maxCycles ?? deps.maxCycles;
      // The deployment's prompt with the caller's memories of this organisation (when memory is on), as the CLI.
      const systemPrompt = await withSavedMemories({
        prompt: deps.systemPrompt,
        memories: deps.storage.memories,
        user: principal.user,
        organizationId: principal.organization.id,
      });
      const start: StartTurnOptions = {
        chatId: chat.id,
        userId: principal.user.id,
        ...(input.research ? { kind: 'research' as const } : {}),
        input: [userMessage],
        cleanup,
        slot: options.slot,
        ...omitUndefined({ approvals, held: options.held }),
        ...(options.resume ? { continues: true } : {}),
        run: (signal, turnIndex, context) => {
          const telemetry = startTurnTelemetry({
            chatId: chat.id,
            turn: turnIndex,
            personaName: persona.name,
            modelName,
            model,
            ...(deps.recordToolContent ? { recordToolContent: true } : {}),
          });
          // runTurn decides research or chat. Deep Research brings its own prompts per step; it reads the
          // conversation and the persona's tools. The steps that speak to the user (clarification, final report)
          // get the system prompt too, and `maxCycles` bounds its orchestrator cycles.
          const turn: ChatTurn = runTurn({
            model: telemetry.model,
            messages: [{ role: 'system', content: systemPrompt }, ...history, userMessage],
            tools,
            files,
            userId: principal.user.id,
            signal,
            hooks: telemetry.hooks,
            ...omitUndefined({ maxCycles }),
            ...deps.turnToolOptions?.(modelName),
            research: input.research && {
              prompts: researchPromptsWith(systemPrompt),
              ...omitUndefined({ contextWindowTokens: deps.contextWindowTokens }),
              ...(answersClarification ? { skipClarification: true } : {}),
              ...(options.resume
                ? { resume: { packets: context.earlier, ...omitUndefined({ checkpoint }) } }
                : {}),
              ...(checkpoints
                ? {
                    // Saved only once the packets before it are stored, and only while this worker holds the
                    // turn: a resume never starts from a checkpoint ahead of the stream.
                    onCheckpoint: async (saved) => {
                      if (!(await context.persisted())) return;
                      await deps.storage.researchCheckpoints.save({
                        chatId: chat.id,
                        turn: turnIndex,
                        checkpoint: saved,
                      });
                    },
                  }
                : {}),
            },
          });
          void turn.result.then(
            (result) => telemetry.end(result),
            (error: unknown) => telemetry.end(undefined, error),
          );
          if (deps.titleChats && history.length === 0 && !input.research) {
            const answer = turn.result.then(
              (result) => result.answer,
              () => undefined,
            );
            void titleNewChat({
              storage: deps.storage,
              chatId: chat.id,
              currentTitle: chat.title,
              question: input.content,
              model,
              answer,
              ...omitUndefined({ logger: deps.logger }),
            });
          }
          return turn;
        },
      };
      return options.turn === undefined
        ? await deps.runner.start(start)
        : await deps.runner.runRecorded({ ...start, turn: options.turn });
    } catch (error) {
      // A turn that never started takes no standalone proxy's asks.
      approvals?.close();
      await cleanup();
      throw error;
    }
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
  ): Promise<{ tools: readonly Tool[]; cleanup: () => Promise<void> }> {
    const deps = this.#deps;
    const cleanups: (() => Promise<void>)[] = [];
    let model = options.model;
    const context: BuiltInToolContext = {
      user: principal.user,
      organizationId: principal.organization.id,
      ...omitUndefined({
        documentIndex: deps.documentIndex?.forOrganization({
          organizationId: principal.organization.id,
          uploadedBy: principal.user.id,
        }),
      }),
      // Resolved only when a built-in needs a model (the memory tool): the MCP endpoint runs no model itself.
      get model() {
        model ??= deps.resolveModel(deps.defaultModel);
        return model;
      },
      onClose: (cleanup) => cleanups.push(cleanup),
      ...omitUndefined({ approvals: options.approvals }),
    };
    const assembly = await constructTools({
      persona,
      user: principal.user,
      storage: deps.storage,
      builtInFactories: deps.builtInToolFactories(context),
      availabilityContext: { userId: principal.user.id, files: options.files ?? [] },
      fetch: deps.fetch,
      ...omitUndefined({ cache: deps.assemblyCache, logger: deps.logger }),
      ...(deps.logger ? { openApi: { logger: deps.logger } } : {}),
      ...(deps.mcpOAuthRedirectUrl || deps.logger
        ? {
            mcp: omitUndefined({
              oauthRedirectUrl: deps.mcpOAuthRedirectUrl,
              oauthRefreshLock: deps.mcpOAuthRefreshLock,
              logger: deps.logger,
            }),
          }
        : {}),
    });
    return {
      tools: assembly.tools,
      cleanup: async () => {
        await assembly.close();
        for (const run of cleanups) await run().catch(() => undefined);
      },
    };
  }

  /** A persona by id, or the default one; `invalid_request` naming `field` when there is none. */
  async persona(id: string | undefined, field: string): Promise<Persona> {
    return this.#persona(id, field);
  }

  async #persona(id: string | undefined, field: string): Promise<Persona> {
    if (id === undefined) {
      const fallback = await this.#deps.defaultPersona();
      if (!fallback) {
        throw new ServerError({
          code: 'invalid_request',
          field,
          message: `${field}: no persona exists yet; an admin creates one first.`,
        });
      }
      return fallback;
    }
    const persona = await this.#deps.storage.personas.get(id);
    if (!persona)
      throw new ServerError({
        code: 'invalid_request',
        field,
        message: `${field}: no persona ${JSON.stringify(id)}.`,
      });
    return persona;
  }

  async #files(principal: Principal, ids: readonly string[]): Promise<ChatFile[]> {
    const files: ChatFile[] = [];
    for (const [index, id] of ids.entries()) {
      const file = await this.#deps.storage.files.get(id);
      if (!file || !ownsRow(principal, file)) {
        throw new ServerError({
          code: 'invalid_request',
          field: `body.fileIds.${index}`,
          message: `body.fileIds.${index}: no file ${JSON.stringify(id)} of yours to attach to this chat (upload it with POST /v1/files).`,
        });
      }
      files.push({ id: file.id, name: file.name, mediaType: file.mediaType, sizeBytes: file.sizeBytes });
    }
    return files;
  }

  async #citations(chatId: string, turn: number): Promise<Omit<CitedDocument, 'content'>[]> {
    const documents = new Map<number, CitedDocument>();
    const cited: number[] = [];
    for (const stored of await this.#deps.storage.chats.listPackets({ chatId, turn })) {
      const { obj } = stored.packet as Packet;
      if (obj.type === 'search-documents')
        for (const document of obj.documents) documents.set(document.citationNumber, document);
      if (obj.type === 'message-start') {
        for (const document of obj.finalDocuments ?? []) documents.set(document.citationNumber, document);
      }
      if (obj.type === 'citation-info' && !cited.includes(obj.citationNumber)) cited.push(obj.citationNumber);
    }
    return cited.flatMap((number) => {
      const document = documents.get(number);
      if (!document) return [];
      const { content: _content, ...shown } = document;
      return [shown];
    });
  }
}

/** Deep Research's prompts with the deployment's system prompt after those of the steps that answer the user. */
function researchPromptsWith(systemPrompt: string): Partial<DeepResearchPrompts> {
  return {
    clarification: `${DEFAULT_DEEP_RESEARCH_PROMPTS.clarification}\n\n${systemPrompt}`,
    finalReport: `${DEFAULT_DEEP_RESEARCH_PROMPTS.finalReport}\n\n${systemPrompt}`,
  };
}
