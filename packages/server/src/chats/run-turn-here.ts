import type { ChatTurn } from '@toolbus/core';
import {
  DEFAULT_DEEP_RESEARCH_PROMPTS,
  type DeepResearchCheckpoint,
  type DeepResearchPrompts,
  parseDeepResearchCheckpoint,
  runTurn,
  type TurnResearchOptions,
} from '@toolbus/research';
import type { ChatMessage, ElicitationAsker, Tool } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { Chat } from '@toolbus/storage';
import { withSavedMemories } from '@toolbus/tools';
import type { Principal } from '../http/principal.ts';
import { ServerError } from '../http/server-error.ts';
import { startTurnTelemetry } from '../observability/turn-telemetry.ts';
import type { TurnRequest } from '../scale-out/turn-queue.ts';
import { assemblePersonaTools } from './assemble-persona-tools.ts';
import type { ChatServiceDependencies } from './chat-service-dependencies.ts';
import { titleNewChat } from './chat-titles.ts';
import type { LiveTurn } from './live-turn.ts';
import type { PreparedTurn } from './prepared-turn.ts';
import type { StartTurnOptions, TurnRunContext } from './start-turn-options.ts';

/** Where a turn runs: a new one, or a recorded (queued) one this worker holds. */
export interface TurnPlacement {
  readonly slot: string;
  readonly turn?: number;
  readonly held?: () => Promise<boolean>;
  /** The queued research turn's worker died: go on from its stored packets and last checkpoint. */
  readonly resume?: boolean;
}

/** A turn to run in this process. */
export interface TurnHere {
  readonly principal: Principal;
  readonly chat: Chat;
  readonly prepared: PreparedTurn;
  readonly input: TurnRequest;
  readonly placement: TurnPlacement;
}

/** What the agent loop of a turn is started with, once the tools and the history are known. */
interface TurnSetting extends TurnHere {
  readonly tools: readonly Tool[];
  readonly setAside: readonly { readonly name: string; readonly reason: string }[];
  readonly history: readonly ChatMessage[];
  readonly systemPrompt: string;
  /** A research turn that ended with clarifying questions is answered by this message: go straight to the plan. */
  readonly answersClarification: boolean;
  readonly checkpoint: DeepResearchCheckpoint | undefined;
}

/** Assembles the tools and runs the turn here (recording it first unless `placement.turn` names a recorded one). */
export async function runTurnHere(deps: ChatServiceDependencies, here: TurnHere): Promise<LiveTurn> {
  const { principal, chat, prepared, input, placement } = here;
  const approvals = deps.approvals?.forTurn({ chatId: chat.id, userId: principal.user.id });
  const elicitations = deps.elicitations?.forTurn({ chatId: chat.id, userId: principal.user.id });
  const {
    tools: assembled,
    setAside,
    cleanup,
  } = await assemblePersonaTools(deps, {
    principal,
    persona: prepared.persona,
    options: { model: prepared.model, files: prepared.files, ...omitUndefined({ approvals }) },
  });
  try {
    const setting = await settleTurn(deps, { ...here, tools: narrowTools(assembled, input.tools), setAside });
    const start: StartTurnOptions = {
      chatId: chat.id,
      userId: principal.user.id,
      ...(input.research ? { kind: 'research' as const } : {}),
      input: [prepared.userMessage],
      cleanup,
      slot: placement.slot,
      ...omitUndefined({ approvals, elicitations, held: placement.held }),
      ...(placement.resume ? { continues: true } : {}),
      run: (signal, turnIndex, context) =>
        startAgentLoop(deps, setting, { signal, turnIndex, context, elicit: elicitations?.ask }),
    };
    return placement.turn === undefined
      ? await deps.runner.start(start)
      : await deps.runner.runRecorded({ ...start, turn: placement.turn });
  } catch (error) {
    // A turn that never started takes no standalone proxy's asks.
    approvals?.close();
    elicitations?.close();
    await cleanup();
    throw error;
  }
}

/** The persona's tools narrowed to the request's `tools`; naming a tool the persona lacks is `invalid_request`. */
function narrowTools(tools: readonly Tool[], names: readonly string[] | undefined): readonly Tool[] {
  if (!names) return tools;
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  names.forEach((name, index) => {
    if (!byName.has(name)) {
      throw new ServerError({
        code: 'invalid_request',
        field: `body.tools.${index}`,
        message: `body.tools.${index}: the persona has no tool "${name}" (it has: ${[...byName.keys()].join(', ') || 'none'}).`,
      });
    }
  });
  const wanted = new Set(names);
  return tools.filter((tool) => wanted.has(tool.name));
}

/** Reads what the loop starts from: the history, the system prompt with memories, a research turn's standing. */
async function settleTurn(
  deps: ChatServiceDependencies,
  turn: TurnHere & Pick<TurnSetting, 'tools' | 'setAside'>,
): Promise<TurnSetting> {
  const { principal, chat, input, placement } = turn;
  const history = (await deps.storage.chats.listMessages(chat.id)).map((stored) => stored.message);
  const previous = input.research
    ? (await deps.storage.chats.listTurns(chat.id)).filter((other) => other.index !== placement.turn).at(-1)
    : undefined;
  const checkpoint =
    placement.resume && placement.turn !== undefined
      ? parseDeepResearchCheckpoint(
          await deps.storage.researchCheckpoints.get({ chatId: chat.id, turn: placement.turn }),
        )
      : undefined;
  // The deployment's prompt with the caller's memories of this organisation (when memory is on), as the CLI.
  const systemPrompt = await withSavedMemories({
    prompt: deps.systemPrompt,
    memories: deps.storage.memories,
    user: principal.user,
    organizationId: principal.organization.id,
  });
  const answersClarification = previous?.kind === 'research' && previous.endReason === 'clarification';
  return { ...turn, history, systemPrompt, answersClarification, checkpoint };
}

/** Starts the turn's agent loop with telemetry, and titles a new chat from its first exchange. */
function startAgentLoop(
  deps: ChatServiceDependencies,
  setting: TurnSetting,
  call: {
    readonly signal: AbortSignal;
    readonly turnIndex: number;
    readonly context: TurnRunContext;
    readonly elicit: ElicitationAsker | undefined;
  },
): ChatTurn {
  const { principal, chat, prepared, input, history } = setting;
  const telemetry = startTurnTelemetry({
    chatId: chat.id,
    turn: call.turnIndex,
    personaName: prepared.persona.name,
    modelName: prepared.modelName,
    model: prepared.model,
    ...(deps.recordToolContent ? { recordToolContent: true } : {}),
  });
  // runTurn decides research or chat. Deep Research brings its own prompts per step; it reads the conversation
  // and the persona's tools. The steps that speak to the user (clarification, final report) get the system prompt
  // too, and `maxCycles` bounds its orchestrator cycles.
  const turn: ChatTurn = runTurn({
    model: telemetry.model,
    messages: [{ role: 'system', content: setting.systemPrompt }, ...history, prepared.userMessage],
    tools: setting.tools,
    setAsideTools: setting.setAside,
    files: prepared.files,
    userId: principal.user.id,
    signal: call.signal,
    hooks: telemetry.hooks,
    // A research turn's tools run in its sub-agents, which have no one to ask: their questions are cancelled.
    ...omitUndefined({ maxCycles: input.maxCycles ?? deps.maxCycles, elicit: call.elicit }),
    ...deps.turnToolOptions?.(prepared.modelName),
    research: input.research && researchOptions(deps, setting, call),
  });
  void turn.result.then(
    (result) => telemetry.end(result),
    (error: unknown) => telemetry.end(undefined, error),
  );
  if (deps.titleChats && history.length === 0 && !input.research) {
    void titleNewChat({
      storage: deps.storage,
      chatId: chat.id,
      currentTitle: chat.title,
      question: input.content,
      model: prepared.model,
      answer: turn.result.then(
        (result) => result.answer,
        () => undefined,
      ),
      ...omitUndefined({ logger: deps.logger }),
    });
  }
  return turn;
}

/** A research turn's options: its prompts, where it resumes from, and (queued turns only) where it checkpoints. */
function researchOptions(
  deps: ChatServiceDependencies,
  setting: TurnSetting,
  call: { readonly turnIndex: number; readonly context: TurnRunContext },
): TurnResearchOptions {
  const { chat, placement } = setting;
  // Only a queued turn (held by this worker) checkpoints: only a queued turn is taken over when its worker dies.
  const checkpoints = placement.held !== undefined && placement.turn !== undefined;
  return {
    prompts: researchPromptsWith(setting.systemPrompt),
    ...omitUndefined({ contextWindowTokens: deps.contextWindowTokens }),
    ...(setting.answersClarification ? { skipClarification: true } : {}),
    ...(placement.resume
      ? { resume: { packets: call.context.earlier, ...omitUndefined({ checkpoint: setting.checkpoint }) } }
      : {}),
    ...(checkpoints
      ? {
          // Saved only once the packets before it are stored, and only while this worker holds the turn: a
          // resume never starts from a checkpoint ahead of the stream.
          onCheckpoint: async (saved) => {
            if (!(await call.context.persisted())) return;
            await deps.storage.researchCheckpoints.save({
              chatId: chat.id,
              turn: call.turnIndex,
              checkpoint: saved,
            });
          },
        }
      : {}),
  };
}

/** Deep Research's prompts with the deployment's system prompt after those of the steps that answer the user. */
function researchPromptsWith(systemPrompt: string): Partial<DeepResearchPrompts> {
  return {
    clarification: `${DEFAULT_DEEP_RESEARCH_PROMPTS.clarification}\n\n${systemPrompt}`,
    finalReport: `${DEFAULT_DEEP_RESEARCH_PROMPTS.finalReport}\n\n${systemPrompt}`,
  };
}
