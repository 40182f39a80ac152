import type { LanguageModelV4 } from '@ai-sdk/provider';
import {
  CUT_OFF_TOOL_CALL_CODE,
  collapseCitations,
  MALFORMED_TOOL_CALL_CODE,
  type PacketSink,
  type RunChatTurnOptions,
  runChatTurn,
  type ToolCallOutcome,
  UNRUN_TOOL_CALL_CODE,
} from '@toolbus/core';
import type { ChatMessage, CitedDocument, Tool, ToolbusError, ToolCall } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { DeepResearchLimits } from './deep-research-limits.ts';
import { type DeepResearchPrompts, fillPrompt } from './deep-research-prompts.ts';
import { createReasoningTextSink } from './reasoning-text-sink.ts';
import { createResearchAgentTool } from './research-agent-tool.ts';
import {
  createGenerateReportTool,
  createThinkTool,
  GENERATE_REPORT_TOOL_NAME,
  RESEARCH_AGENT_TOOL_NAME,
  THINK_TOOL_NAME,
} from './research-tools.ts';
import { type ResearchAgentReport, runResearchAgent } from './run-research-agent.ts';

/** One agent's outcome, for the result and the final report. */
export interface ResearchAgentOutcome {
  readonly callId: string;
  readonly task: string;
  readonly status: 'completed' | 'timed-out' | 'failed' | 'not-run';
  /** What the orchestrator read: the renumbered report, or why there is none. */
  readonly report: string;
}

/** Options for {@link runOrchestrator}. */
export interface RunOrchestratorOptions {
  readonly model: LanguageModelV4;
  /** The recent user messages of the conversation. */
  readonly context: readonly ChatMessage[];
  readonly plan: string;
  readonly searchTools: readonly Tool[];
  readonly sink: PacketSink;
  readonly turn: number;
  readonly limits: DeepResearchLimits;
  readonly prompts: DeepResearchPrompts;
  readonly reasoningModel: boolean;
  readonly date: string;
  readonly startedAt: number;
  readonly signal?: AbortSignal;
  readonly stream?: RunChatTurnOptions['stream'];
  readonly userQuery: string;
  /** Where an interrupted run's orchestrator stood: its cycles go on from there (at `turn`, not its own). */
  readonly progress?: OrchestratorProgress;
  /** Called after each completed cycle and awaited, so a checkpoint is saved before the next cycle starts. */
  readonly onCycle?: (progress: OrchestratorProgress) => Promise<void>;
}

/** What the orchestrator's completed cycles gathered so far: a checkpoint's part of it. */
export interface OrchestratorProgress {
  readonly cycles: number;
  /** The next top-level placement turn. */
  readonly turn: number;
  readonly history: readonly ChatMessage[];
  readonly agents: readonly ResearchAgentOutcome[];
  readonly documents: ReadonlyMap<number, CitedDocument>;
  /** No cycle is left to run: the report comes next. */
  readonly done: boolean;
}

/** What the orchestrator's cycles gathered. */
export interface OrchestratorResult {
  readonly turn: number;
  readonly cycles: number;
  readonly agents: readonly ResearchAgentOutcome[];
  /** Every document the agents' reports cite, one dense numbering in dispatch order. */
  readonly documents: ReadonlyMap<number, CitedDocument>;
  readonly toolOutcomes: readonly ToolCallOutcome[];
  /** The orchestrator's history: assistant tool calls, one result per call id. */
  readonly messages: readonly ChatMessage[];
  readonly error?: ToolbusError;
}

/**
 * The orchestrator: the one turn loop (`runChatTurn`), configured. Each cycle must call a tool (`think_tool` for
 * models without reasoning, streamed as reasoning; `research_agent`; `generate_report`) and reads a system prompt
 * that names the cycle. Agents of one cycle run in parallel, at most `maxParallelAgents` (the tool declares it;
 * calls over it are answered without running); their reports are renumbered into one mapping in dispatch order.
 * Calls the model wrote as text are recovered like in every turn; calls the output token limit cut off, calls of
 * a step that ended badly and dispatches with malformed arguments are answered without running. Ends on `generate_report`, a cycle without agents or calls, the last cycle, or the
 * force-report timer: the report is always written from what there is.
 */
export async function runOrchestrator(options: RunOrchestratorOptions): Promise<OrchestratorResult> {
  const { limits, prompts } = options;
  const maxCycles = options.reasoningModel ? limits.orchestratorCyclesReasoning : limits.orchestratorCycles;
  const resumed = options.progress;
  const prior: readonly ChatMessage[] = resumed?.history ?? [];
  const agents: ResearchAgentOutcome[] = [...(resumed?.agents ?? [])];
  let documents: ReadonlyMap<number, CitedDocument> = resumed?.documents ?? new Map();
  const firstCycle = resumed?.cycles ?? 0;
  let cycles = firstCycle;
  let turn = options.turn;
  const renumber = (report: ResearchAgentReport): string => {
    const collapsed = collapseCitations(report.report, report.citedDocuments, { existing: documents });
    documents = collapsed.mapping;
    return collapsed.text;
  };
  const reports = new Map<string, ResearchAgentReport>();
  const tools = orchestratorTools({ options, reports, renumber });
  const finish = (fields: Partial<OrchestratorResult> = {}): OrchestratorResult => ({
    turn,
    cycles,
    agents,
    documents,
    toolOutcomes: [],
    messages: prior,
    ...fields,
  });
  // Cycles with tools run up to `maxCycles - 1`: the report is the last model call.
  const lastToolCycle = maxCycles - 1;
  if (resumed?.done || firstCycle >= lastToolCycle) return finish();

  const loop = runChatTurn({
    model: options.model,
    messages: [...options.context, ...prior],
    tools,
    toolChoice: 'required',
    // The hooks end the loop; this bound is only a backstop (+1: the loop's last cycle offers no tools).
    maxCycles: lastToolCycle - firstCycle + 1,
    // A weak model may write every dispatch as text: each cycle may recover its calls.
    recovery: { maxAttempts: lastToolCycle },
    // A dispatch with malformed arguments is not repaired into a task the orchestrator never wrote.
    refuseRepairedCalls: true,
    parent: { sink: createReasoningTextSink(options.sink), firstTurn: options.turn },
    ...(options.reasoningModel ? {} : { reasoningTool: THINK_TOOL_NAME }),
    ...omitUndefined({ signal: options.signal }),
    stream: { ...options.stream, maxOutputTokens: limits.orchestratorStepTokens },
    beforeCycle: ({ cycle, messages }) => {
      const number = firstCycle + cycle;
      if (number >= lastToolCycle || Date.now() - options.startedAt >= limits.forceReportMs)
        return { stop: true };
      if (options.signal?.aborted) return { stop: true };
      const system = fillPrompt(
        options.reasoningModel ? prompts.orchestratorReasoning : prompts.orchestrator,
        {
          date: options.date,
          cycle: number + 1,
          maxCycles,
          maxParallelAgents: limits.maxParallelAgents,
          plan: options.plan,
        },
      );
      return {
        toolChoice: 'required',
        messages: [
          { role: 'system', content: number === 1 ? `${system}\n\n${prompts.firstCycleReminder}` : system },
          ...messages,
        ],
      };
    },
    afterCycle: async ({ cycle, toolCalls, toolOutcomes, messages, nextTurn }) => {
      cycles = firstCycle + cycle + 1;
      turn = nextTurn;
      for (const outcome of toolOutcomes) {
        if (outcome.call.name === RESEARCH_AGENT_TOOL_NAME && !wasNotRun(outcome))
          agents.push(agentOutcomeOf(outcome, reports));
      }
      const done = researchDone(toolCalls, toolOutcomes, options.reasoningModel) || cycles >= lastToolCycle;
      // A cycle cut short by the signal is not a completed one: no checkpoint of it.
      if (!options.signal?.aborted) {
        await options.onCycle?.({
          cycles,
          turn,
          history: [...prior, ...messages],
          agents: [...agents],
          documents,
          done,
        });
      }
      return { stop: done };
    },
  });
  const result = await loop.result;
  return finish({
    toolOutcomes: result.toolOutcomes,
    messages: [...prior, ...result.messages],
    ...omitUndefined({ error: result.error }),
  });
}

/** The orchestrator's tools: `think_tool` (models without reasoning), `research_agent`, `generate_report`. */
function orchestratorTools(input: {
  readonly options: RunOrchestratorOptions;
  readonly reports: Map<string, ResearchAgentReport>;
  readonly renumber: (report: ResearchAgentReport) => string;
}): Tool[] {
  const { options } = input;
  const { limits, prompts } = options;
  const agentTool = createResearchAgentTool({
    timeoutMs: limits.agentTimeoutMs,
    maxParallel: limits.maxParallelAgents,
    reports: input.reports,
    present: input.renumber,
    run: (task, context, signal) =>
      runResearchAgent({
        task,
        model: options.model,
        tools: options.searchTools,
        context,
        limits,
        prompts,
        reasoningModel: options.reasoningModel,
        date: options.date,
        signal,
        ...omitUndefined({ stream: options.stream }),
      }),
  });
  return [
    ...(options.reasoningModel
      ? []
      : [createThinkTool('Think between research rounds and before the report, in a paragraph, no lists.')]),
    agentTool,
    createGenerateReportTool(
      'Call when every aspect is researched or the cycles run out: the report is written.',
    ),
  ];
}

/** What the orchestrator keeps of one `research_agent` call: its renumbered report, or why there is none. */
function agentOutcomeOf(
  outcome: ToolCallOutcome,
  reports: ReadonlyMap<string, ResearchAgentReport>,
): ResearchAgentOutcome {
  const task = String(outcome.call.arguments.task ?? '');
  const report = reports.get(outcome.call.id);
  const text = outcome.response.llmFacing;
  if (report && outcome.status === 'success') {
    return { callId: outcome.call.id, task, status: report.status, report: text };
  }
  return {
    callId: outcome.call.id,
    task,
    status: outcome.status === 'over-cap' ? 'not-run' : 'failed',
    report: text || 'The research agent did not run.',
  };
}

/**
 * Research is done after `generate_report`, or after a cycle that neither dispatched an agent nor thought nor
 * had a call answered without running (that call gets another cycle).
 */
function researchDone(
  calls: readonly ToolCall[],
  outcomes: readonly ToolCallOutcome[],
  reasoningModel: boolean,
): boolean {
  const unrun = new Set(outcomes.filter(wasNotRun).map((outcome) => outcome.call.id));
  if (calls.some((call) => call.name === GENERATE_REPORT_TOOL_NAME && !unrun.has(call.id))) return true;
  const dispatched = calls.some((call) => call.name === RESEARCH_AGENT_TOOL_NAME);
  const thought = !reasoningModel && calls.some((call) => call.name === THINK_TOOL_NAME);
  return !dispatched && !thought && unrun.size === 0;
}

/** The codes of calls the loop answered without running: cut off, in a step that ended badly, or malformed. */
const notRunCodes: ReadonlySet<string> = new Set([
  CUT_OFF_TOOL_CALL_CODE,
  UNRUN_TOOL_CALL_CODE,
  MALFORMED_TOOL_CALL_CODE,
]);

/** A call answered without running (see {@link notRunCodes}): the orchestrator may make it again next cycle. */
function wasNotRun({ response }: ToolCallOutcome): boolean {
  return response.rich?.type === 'failure' && notRunCodes.has(response.rich.code ?? '');
}
