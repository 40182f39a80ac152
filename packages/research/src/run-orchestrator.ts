import type { LanguageModelV4 } from '@ai-sdk/provider';
import {
  answerCutOffCalls,
  answerUnrunCalls,
  collapseCitations,
  createCitationAllocator,
  MALFORMED_TOOL_CALL_CODE,
  malformedToolCallMessage,
  type PacketSink,
  type RunChatTurnOptions,
  runLlmStep,
  runToolCalls,
  StepPlacement,
  stepEndedBadly,
  type ToolCallOutcome,
  unrunToolCallMessage,
} from '@toolbus/core';
import type { ChatMessage, CitedDocument, Tool, ToolbusError } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { DeepResearchLimits } from './deep-research-limits.ts';
import { type DeepResearchPrompts, fillPrompt } from './deep-research-prompts.ts';
import { createResearchAgentTool } from './research-agent-tool.ts';
import {
  createGenerateReportTool,
  createThinkTool,
  GENERATE_REPORT_TOOL_NAME,
  RESEARCH_AGENT_TOOL_NAME,
  THINK_TOOL_NAME,
  THINK_TOOL_RESPONSE,
} from './research-tools.ts';
import { createRetypingSink, textAsReasoning } from './retyping-sink.ts';
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
 * The orchestrator's cycles: each step must call a tool (`think_tool` for models without reasoning, streamed as
 * reasoning and answered at once; `research_agent`; `generate_report`). Agents of one step run in parallel, at
 * most `maxParallelAgents` (calls over it are answered without running); their reports are renumbered into one
 * mapping in dispatch order. Ends on `generate_report`, a step without agents or calls, the last cycle, or the
 * force-report timer: the report is always written from what there is.
 */
export async function runOrchestrator(options: RunOrchestratorOptions): Promise<OrchestratorResult> {
  const { limits, prompts } = options;
  const maxCycles = options.reasoningModel ? limits.orchestratorCyclesReasoning : limits.orchestratorCycles;
  const reports = new Map<string, ResearchAgentReport>();
  const agentTool = createResearchAgentTool({
    timeoutMs: limits.agentTimeoutMs,
    reports,
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
  const tools: Tool[] = [
    ...(options.reasoningModel
      ? []
      : [createThinkTool('Think between research rounds and before the report, in a paragraph, no lists.')]),
    agentTool,
    createGenerateReportTool(
      'Call when every aspect is researched or the cycles run out: the report is written.',
    ),
  ];
  const offered = new Set(tools.map((tool) => tool.name));
  const placement = new StepPlacement();
  const resumed = options.progress;
  const history: ChatMessage[] = [...(resumed?.history ?? [])];
  const agents: ResearchAgentOutcome[] = [...(resumed?.agents ?? [])];
  const toolOutcomes: ToolCallOutcome[] = [];
  let documents: ReadonlyMap<number, CitedDocument> = resumed?.documents ?? new Map();
  let turn = options.turn;
  let cycles = resumed?.cycles ?? 0;
  // A cycle cut short by the signal is not a completed one: no checkpoint of it.
  const completed = async (done: boolean) => {
    if (options.signal?.aborted) return;
    await options.onCycle?.({ cycles, turn, history: [...history], agents: [...agents], documents, done });
  };

  for (let cycle = cycles; cycle < maxCycles - 1 && !resumed?.done; cycle += 1) {
    if (Date.now() - options.startedAt >= limits.forceReportMs) break;
    if (options.signal?.aborted) break;
    cycles += 1;
    const system = fillPrompt(options.reasoningModel ? prompts.orchestratorReasoning : prompts.orchestrator, {
      date: options.date,
      cycle: cycle + 1,
      maxCycles,
      maxParallelAgents: limits.maxParallelAgents,
      plan: options.plan,
    });
    const step = await runLlmStep({
      model: options.model,
      messages: [
        { role: 'system', content: cycle === 1 ? `${system}\n\n${prompts.firstCycleReminder}` : system },
        ...options.context,
        ...history,
      ],
      tools,
      toolChoice: 'required',
      turn,
      placement,
      sink: createRetypingSink({ target: options.sink, retype: textAsReasoning }),
      citations: createCitationAllocator(),
      announcedDocuments: new Set(),
      batch: undefined,
      citing: false,
      ...(options.reasoningModel ? {} : { reasoningTool: THINK_TOOL_NAME }),
      ...omitUndefined({ signal: options.signal }),
      stream: { ...options.stream, maxOutputTokens: limits.orchestratorStepTokens },
    });
    if (step.answerStarted) {
      // The orchestrator's text went out as reasoning; close it like reasoning.
      options.sink.emitAt(placement.at({ turn: step.nextTurn - 1, tab: 0 }), { type: 'reasoning-end' });
    }
    turn = step.nextTurn;
    if (step.error)
      return { turn, cycles, agents, documents, toolOutcomes, messages: history, error: step.error };
    const calls = step.toolCalls;
    if (calls.length === 0) {
      await completed(true);
      break;
    }

    // A dispatch the output token limit cut off is answered without running (fail closed), and the
    // orchestrator gets another cycle to dispatch it again.
    // So is every call of a step that ended badly (content filter, provider error, unknown reason).
    const badly = stepEndedBadly(step.finishReason);
    const unrun = badly ? calls : step.cutOffToolCalls;
    const cutOffOutcomes = answerCutOffCalls(unrun, [agentTool], options.sink, step.finishReason);
    // A dispatch whose arguments were not valid JSON is not repaired into a task the orchestrator never wrote: it
    // is told what its call read as, and dispatches again.
    const malformed = badly
      ? []
      : step.malformedToolCalls.filter((call) => call.name === RESEARCH_AGENT_TOOL_NAME);
    const malformedOutcomes = answerUnrunCalls({
      calls: malformed,
      tools: [agentTool],
      sink: options.sink,
      code: MALFORMED_TOOL_CALL_CODE,
      message: malformedToolCallMessage,
    });
    toolOutcomes.push(...cutOffOutcomes, ...malformedOutcomes);
    const cutOff = new Set(cutOffOutcomes.map((outcome) => outcome.call.id));
    const unread = new Map(malformed.map((call) => [call.id, malformedToolCallMessage(call)]));
    const agentCalls = calls.filter(
      (call) => call.name === RESEARCH_AGENT_TOOL_NAME && !cutOff.has(call.id) && !unread.has(call.id),
    );
    const settled =
      agentCalls.length > 0
        ? await runToolCalls(agentCalls, [agentTool], {
            emitter: options.sink,
            maxConcurrentTools: limits.maxParallelAgents,
            userQuery: options.userQuery,
            ...omitUndefined({ signal: options.signal }),
          })
        : undefined;
    toolOutcomes.push(...(settled?.outcomes ?? []));
    const results: ChatMessage[] = calls.map((call) => {
      const answer = (content: string): ChatMessage => ({
        role: 'tool',
        toolCallId: call.id,
        toolName: call.name,
        content,
      });
      if (cutOff.has(call.id)) return answer(unrunToolCallMessage(call.name, step.finishReason));
      const misread = unread.get(call.id);
      if (misread !== undefined) return answer(misread);
      if (call.name === THINK_TOOL_NAME && offered.has(THINK_TOOL_NAME)) return answer(THINK_TOOL_RESPONSE);
      if (call.name === GENERATE_REPORT_TOOL_NAME) return answer('Writing the final report now.');
      if (call.name !== RESEARCH_AGENT_TOOL_NAME) {
        return answer(
          `There is no tool named "${call.name}". Use ${tools.map((tool) => tool.name).join(', ')}.`,
        );
      }
      const task = String(call.arguments.task ?? '');
      const report = reports.get(call.id);
      const outcome = settled?.outcomes.find((entry) => entry.call.id === call.id);
      if (report) {
        const collapsed = collapseCitations(report.report, report.citedDocuments, { existing: documents });
        documents = collapsed.mapping;
        agents.push({ callId: call.id, task, status: report.status, report: collapsed.text });
        return answer(collapsed.text);
      }
      const content = outcome?.response.llmFacing ?? 'The research agent did not run.';
      agents.push({
        callId: call.id,
        task,
        status: outcome?.status === 'over-cap' ? 'not-run' : 'failed',
        report: content,
      });
      return answer(content);
    });
    history.push({
      role: 'assistant',
      content: '',
      ...(step.reasoning ? { reasoning: step.reasoning } : {}),
      toolCalls: calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })),
    });
    history.push(...results);
    const thought = offered.has(THINK_TOOL_NAME) && calls.some((call) => call.name === THINK_TOOL_NAME);
    const done =
      calls.some((call) => call.name === GENERATE_REPORT_TOOL_NAME && !cutOff.has(call.id)) ||
      (agentCalls.length === 0 && !thought && cutOff.size === 0 && unread.size === 0) ||
      cycle + 1 >= maxCycles - 1;
    await completed(done);
    if (done) break;
  }
  return { turn, cycles, agents, documents, toolOutcomes, messages: history };
}
