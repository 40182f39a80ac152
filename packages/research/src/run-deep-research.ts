import type { LanguageModelV4 } from '@ai-sdk/provider';
import {
  type ChatTurnResult,
  createCitationAllocator,
  Emitter,
  type RunChatTurnOptions,
} from '@toolbus/core';
import { StepPlacement } from '@toolbus/core/step';
import type { ChatMessage, CitationCheck, Packet, StopReason } from '@toolbus/spec';
import { foldAnswer, omitUndefined, ToolbusError } from '@toolbus/spec';
import { checkContextGate } from './check-context-gate.ts';
import { citedDocumentsIn } from './cited-documents-in.ts';
import { clarifyOrPlan, type ResearchStepBase } from './clarify-or-plan.ts';
import { closeInterruptedStream } from './close-interrupted-stream.ts';
import type { DeepResearchCheckpoint, DeepResearchResume } from './deep-research-checkpoint.ts';
import { DEFAULT_DEEP_RESEARCH_LIMITS, type DeepResearchLimits } from './deep-research-limits.ts';
import { DEFAULT_DEEP_RESEARCH_PROMPTS, type DeepResearchPrompts } from './deep-research-prompts.ts';
import { researchToolsOf } from './research-tools.ts';
import { type OrchestratorProgress, type ResearchAgentOutcome, runOrchestrator } from './run-orchestrator.ts';
import { writeCheckedReport } from './write-checked-report.ts';

/**
 * Options for {@link runDeepResearch}. A Deep Research run is a turn: its model, conversation (ending with the
 * user's question, or their answer to the clarifying questions), cancellation, model index and stream settings are
 * a chat turn's. Of the chat's tools, agents get only internal_search, web_search and open_url.
 */
export interface RunDeepResearchOptions
  extends Pick<RunChatTurnOptions, 'model' | 'messages' | 'tools' | 'signal' | 'modelIndex' | 'stream'> {
  /** The model's input window in tokens: checked against `limits.minContextTokens` before anything runs. */
  readonly contextWindowTokens?: number;
  /** The model reasons natively: fewer orchestrator cycles, no think_tool. Default false. */
  readonly reasoningModel?: boolean;
  /** Go straight to the plan (e.g. the previous turn was this run's clarification). Default false. */
  readonly skipClarification?: boolean;
  /** Check each citation of the report against its source. Default true. */
  readonly checkCitations?: boolean;
  /** The model that judges citations; default `model`. */
  readonly citationCheckModel?: LanguageModelV4;
  readonly limits?: Partial<DeepResearchLimits>;
  readonly prompts?: Partial<DeepResearchPrompts>;
  /** Today's date for the prompts. Default: now. */
  readonly date?: string;
  /**
   * Resume a run whose process died: its stored packets stand (what they left open is closed), a reasoning note
   * says the run resumed, and it goes on from the checkpoint (the cycle in progress at the death runs again).
   */
  readonly resume?: DeepResearchResume;
  /**
   * Saves a checkpoint: called after the plan and after each completed orchestrator cycle, and awaited before the
   * run goes on (so a checkpoint never runs ahead of what the caller stored). A rejection does not stop the run;
   * a later resume starts from an earlier checkpoint then.
   */
  readonly onCheckpoint?: (checkpoint: DeepResearchCheckpoint) => Promise<void>;
}

/** What a Deep Research run produced: a chat turn's result plus the research. */
export interface DeepResearchResult extends ChatTurnResult {
  /** True when the run asked clarifying questions (`answer`) and ended: the next user message continues it. */
  readonly clarification: boolean;
  readonly plan: string;
  readonly agents: readonly ResearchAgentOutcome[];
  /** One verdict per (sentence, citation) of the report; empty when the check is off. */
  readonly citationChecks: readonly CitationCheck[];
}

/** A running Deep Research turn: iterate it for packets; `result` settles when it ends (it never rejects). */
export interface DeepResearchTurn extends AsyncIterable<Packet> {
  readonly result: Promise<DeepResearchResult>;
}

/**
 * Runs Deep Research as one turn, with the same packet stream and result promise as `runChatTurn`:
 * a context gate; clarification (questions end the turn, marked as a clarification) or `generate_plan`; a
 * streamed plan; orchestrator cycles that dispatch research agents in parallel, each its own tool loop with
 * parallel tool calls inside; one report cited with the agents' sources; then the citation support check.
 */
export function runDeepResearch(options: RunDeepResearchOptions): DeepResearchTurn {
  const emitter = new Emitter({ modelIndex: options.modelIndex ?? 0 });
  const result = research(options, emitter)
    .catch((thrown: unknown) => {
      const error = ToolbusError.isInstance(thrown)
        ? thrown
        : new ToolbusError({
            code: 'deep_research_failed',
            message: 'Deep Research failed unexpectedly.',
            cause: thrown,
          });
      emitter.emitAt({ turn: 0, tab: 0 }, { type: 'error', code: error.code, message: error.message });
      emitter.emitAt({ turn: 0, tab: 0 }, { type: 'stop', reason: 'error' });
      return emptyResult({ stopReason: 'error', error });
    })
    .finally(() => emitter.close());
  return { result, [Symbol.asyncIterator]: () => emitter[Symbol.asyncIterator]() };
}

async function research(options: RunDeepResearchOptions, emitter: Emitter): Promise<DeepResearchResult> {
  const limits: DeepResearchLimits = { ...DEFAULT_DEEP_RESEARCH_LIMITS, ...options.limits };
  const prompts: DeepResearchPrompts = { ...DEFAULT_DEEP_RESEARCH_PROMPTS, ...options.prompts };
  checkContextGate(options.contextWindowTokens, limits.minContextTokens);
  // The interrupted run had ended its stream (it died after its stop, before its caller recorded the end): nothing
  // runs again and nothing is added; the result is read from the stream.
  const ended = options.resume && endedStreamResult(options.resume);
  if (ended) return ended;
  const checkpoint = options.resume?.checkpoint;
  const startedAt = Date.now() - (checkpoint?.elapsedMs ?? 0);
  const date = checkpoint?.date ?? options.date ?? new Date().toISOString().slice(0, 10);
  const placement = new StepPlacement();
  const context = checkpoint
    ? [...checkpoint.context]
    : recentUserMessages(options.messages, limits.contextUserMessages);
  const question =
    checkpoint?.question ?? [...context].reverse().find((message) => message.role === 'user')?.content ?? '';
  const common: ResearchStepBase = {
    model: options.model,
    placement,
    citations: createCitationAllocator(),
    batch: undefined,
    citing: false,
    ...omitUndefined({ signal: options.signal, stream: options.stream }),
  };
  let turn = options.resume ? resumeStream(options.resume, emitter) : 0;
  const save = async (plan: string, progress: OrchestratorProgress): Promise<void> => {
    await options
      .onCheckpoint?.({
        version: 1,
        context,
        question,
        plan,
        date,
        elapsedMs: Date.now() - startedAt,
        turn: progress.turn,
        cycles: progress.cycles,
        researchDone: progress.done,
        history: progress.history,
        agents: progress.agents,
        documents: [...progress.documents.values()],
      })
      .catch(() => undefined);
  };

  let plan = checkpoint?.plan ?? '';
  if (!checkpoint) {
    const planned = await clarifyOrPlan({
      step: common,
      context,
      prompts,
      sink: emitter,
      turn,
      skipClarification: options.skipClarification ?? false,
    });
    if (planned.kind === 'clarification') {
      return emptyResult({
        stopReason: 'clarification',
        answer: planned.answer,
        clarification: true,
        messages: [{ role: 'assistant', content: planned.answer }],
      });
    }
    plan = planned.plan;
    turn = planned.turn;
    if (!options.signal?.aborted) {
      await save(plan, { cycles: 0, turn, history: [], agents: [], documents: new Map(), done: false });
    }
  }

  const orchestrated = await runOrchestrator({
    model: options.model,
    context,
    plan,
    searchTools: researchToolsOf(options.tools ?? []),
    sink: emitter,
    turn,
    limits,
    prompts,
    reasoningModel: options.reasoningModel ?? false,
    date,
    startedAt,
    userQuery: question,
    onCycle: (progress) => save(plan, progress),
    ...omitUndefined({
      signal: options.signal,
      stream: options.stream,
      progress: checkpoint && {
        cycles: checkpoint.cycles,
        turn,
        history: checkpoint.history,
        agents: checkpoint.agents,
        documents: new Map(checkpoint.documents.map((document) => [document.citationNumber, document])),
        done: checkpoint.researchDone,
      },
    }),
  });
  if (orchestrated.error) throw orchestrated.error;
  turn = orchestrated.turn;
  const documents = orchestrated.documents;

  const { answer, citationChecks, reportTurn } = await writeCheckedReport({
    step: common,
    sink: emitter,
    turn,
    context,
    plan,
    question,
    date,
    prompts,
    limits,
    agents: orchestrated.agents,
    documents,
    citationCheckModel:
      options.checkCitations === false ? undefined : (options.citationCheckModel ?? options.model),
  });
  const stopReason: StopReason = options.signal?.aborted ? 'user-cancelled' : 'finished';
  emitter.emitAt({ turn: reportTurn, tab: 0 }, { type: 'stop', reason: stopReason });
  return {
    answer,
    stopReason,
    messages: [{ role: 'assistant', content: answer }],
    citedDocuments: [...citedDocumentsIn(answer, documents).values()],
    documents,
    toolOutcomes: orchestrated.toolOutcomes,
    cycles: orchestrated.cycles,
    recoveredToolCalls: 0,
    clarification: false,
    plan,
    agents: orchestrated.agents,
    citationChecks,
  };
}

/**
 * Appends what the interrupted run's stream needs before this run's packets follow it (see
 * {@link closeInterruptedStream}), then a reasoning note saying the run resumed and what is redone; returns the
 * top-level turn this run starts at.
 */
function resumeStream(resume: DeepResearchResume, emitter: Emitter): number {
  const reason = 'the server running this research stopped; the research resumed on another one.';
  const closed = closeInterruptedStream(resume.packets, reason);
  for (const packet of closed.closing) emitter.emitAt(packet.placement, packet.obj);
  const noteTurn = Math.max(closed.nextTurn, resume.checkpoint?.turn ?? 0);
  const at = { turn: noteTurn, tab: 0 };
  emitter.emitAt(at, { type: 'reasoning-start' });
  emitter.emitAt(at, { type: 'reasoning-delta', reasoning: resumedNote(resume.checkpoint) });
  emitter.emitAt(at, { type: 'reasoning-end' });
  return noteTurn + 1;
}

/** The result of a run whose stored stream already ends with `stop`, read from its packets; else undefined. */
function endedStreamResult(resume: DeepResearchResume): DeepResearchResult | undefined {
  const stop = resume.packets.at(-1)?.obj;
  if (stop?.type !== 'stop') return undefined;
  const folded = foldAnswer(resume.packets);
  const answer = folded.answer;
  const failure = folded.error && new ToolbusError(folded.error);
  return emptyResult({
    stopReason: stop.reason,
    answer,
    messages: answer.trim() ? [{ role: 'assistant', content: answer }] : [],
    clarification: stop.reason === 'clarification',
    plan: resume.checkpoint?.plan ?? '',
    agents: resume.checkpoint?.agents ?? [],
    ...(stop.reason === 'error' ? omitUndefined({ error: failure }) : {}),
  });
}

/** What a resumed run tells the reader: what it kept and what it does again. */
export function resumedNote(checkpoint: DeepResearchCheckpoint | undefined): string {
  const lead = 'The server running this research stopped; another one resumed it.';
  if (!checkpoint)
    return `${lead} It had not finished its plan, so the research starts again from the beginning.`;
  const kept =
    checkpoint.cycles === 0
      ? 'The plan is kept'
      : `The plan and ${checkpoint.cycles} completed research cycle${checkpoint.cycles === 1 ? '' : 's'} are kept`;
  const again = checkpoint.researchDone
    ? 'the report is written again.'
    : 'the cycle that was in progress runs again (research agents only search and read pages, so running one twice changes nothing).';
  return `${lead} ${kept}; ${again}`;
}

function emptyResult(fields: Partial<DeepResearchResult> & { stopReason: StopReason }): DeepResearchResult {
  return {
    answer: '',
    messages: [],
    citedDocuments: [],
    documents: new Map(),
    toolOutcomes: [],
    cycles: 0,
    recoveredToolCalls: 0,
    clarification: false,
    plan: '',
    agents: [],
    citationChecks: [],
    ...fields,
  };
}

/**
 * The conversation from the `count`-th last user message on, as text (user and assistant only, tool calls left
 * out): a reply to clarifying questions is read together with the questions.
 */
function recentUserMessages(messages: readonly ChatMessage[], count: number): ChatMessage[] {
  let start = messages.length;
  for (let seen = 0; start > 0 && seen < count; ) {
    start -= 1;
    if (messages[start]?.role === 'user') seen += 1;
  }
  const recent: ChatMessage[] = [];
  for (const message of messages.slice(start)) {
    if (message.role === 'user') recent.push({ role: 'user', content: message.content });
    else if (message.role === 'assistant' && message.content.trim()) {
      recent.push({ role: 'assistant', content: message.content });
    }
  }
  return recent;
}
