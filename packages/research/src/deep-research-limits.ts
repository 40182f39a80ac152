/**
 * The limits of one Deep Research run. Every one is a named default below and can be overridden per run
 * (`runDeepResearch({ limits: { ... } })`); docs/decisions/deep-research.md explains where each number comes from.
 */
export interface DeepResearchLimits {
  /** Models with a smaller input window are refused before any model call (the run needs plans and reports). */
  readonly minContextTokens: number;
  /** Orchestrator cycles for models without native reasoning (think calls use cycles too). */
  readonly orchestratorCycles: number;
  /** Orchestrator cycles for reasoning models (no think_tool: they think natively). */
  readonly orchestratorCyclesReasoning: number;
  /** After this long the orchestrator stops dispatching and writes the report (checked before each cycle). */
  readonly forceReportMs: number;
  /** Research cycles per agent (think calls do not count here; they have their own cap). */
  readonly agentResearchCycles: number;
  /** Think calls per agent: after this many, think_tool is no longer offered to it. */
  readonly agentThinkCycles: number;
  /** After this long an agent stops researching and writes its report (checked before each cycle). */
  readonly agentForceReportMs: number;
  /** A whole agent, report included: past it the agent is aborted and answers with a "timed out" report. */
  readonly agentTimeoutMs: number;
  /** Research agents that run at once; calls over it are answered without running. */
  readonly maxParallelAgents: number;
  /** Output tokens of one orchestrator step. */
  readonly orchestratorStepTokens: number;
  /** Output tokens of one research-agent step. */
  readonly agentStepTokens: number;
  /** Output tokens of an intermediate report. */
  readonly intermediateReportTokens: number;
  /** Output tokens of the final report. */
  readonly finalReportTokens: number;
  /** User messages of the conversation the clarification and plan steps read (the most recent ones). */
  readonly contextUserMessages: number;
  /** Citations judged per model call by the citation support check (at most one extra call per this many). */
  readonly citationCheckBatchSize: number;
  /** Model calls the citation support check may make in all; citations past them stay `unverifiable`. */
  readonly citationCheckMaxCalls: number;
}

/** Input tokens a model needs for Deep Research. */
export const DEEP_RESEARCH_MIN_CONTEXT_TOKENS = 50_000;
/** Orchestrator cycles, models without reasoning: research, think, research, think... then the report. */
export const DEEP_RESEARCH_ORCHESTRATOR_CYCLES = 8;
/** Orchestrator cycles, reasoning models: the four think cycles are not needed. */
export const DEEP_RESEARCH_ORCHESTRATOR_CYCLES_REASONING = 4;
/** 30 minutes, then the report is written from what the agents found. */
export const DEEP_RESEARCH_FORCE_REPORT_MS = 30 * 60 * 1000;
/** Research cycles per agent. */
export const RESEARCH_AGENT_CYCLES = 8;
/** Think calls per agent (unbounded think calls could loop until the timer). */
export const RESEARCH_AGENT_THINK_CYCLES = 8;
/** 12 minutes, then an agent writes its report. */
export const RESEARCH_AGENT_FORCE_REPORT_MS = 12 * 60 * 1000;
/** 30 minutes for a whole agent; past it the agent is aborted. */
export const RESEARCH_AGENT_TIMEOUT_MS = 30 * 60 * 1000;
/** Research agents at once. */
export const MAX_PARALLEL_RESEARCH_AGENTS = 3;
/** Output tokens of one orchestrator step (it only calls tools). */
export const ORCHESTRATOR_STEP_TOKENS = 1024;
/** Output tokens of one research-agent step (it only calls tools). */
export const RESEARCH_AGENT_STEP_TOKENS = 1000;
/** Output tokens of an intermediate report. */
export const INTERMEDIATE_REPORT_TOKENS = 10_000;
/** Output tokens of the final report. */
export const FINAL_REPORT_TOKENS = 20_000;
/** Recent user messages read by the clarification and plan steps. */
export const DEEP_RESEARCH_CONTEXT_USER_MESSAGES = 5;
/** Citations judged per model call. */
export const CITATION_CHECK_BATCH_SIZE = 8;
/** Model calls of the citation check in all. */
export const CITATION_CHECK_MAX_CALLS = 4;

/** The defaults, all in one object. */
export const DEFAULT_DEEP_RESEARCH_LIMITS: DeepResearchLimits = {
  minContextTokens: DEEP_RESEARCH_MIN_CONTEXT_TOKENS,
  orchestratorCycles: DEEP_RESEARCH_ORCHESTRATOR_CYCLES,
  orchestratorCyclesReasoning: DEEP_RESEARCH_ORCHESTRATOR_CYCLES_REASONING,
  forceReportMs: DEEP_RESEARCH_FORCE_REPORT_MS,
  agentResearchCycles: RESEARCH_AGENT_CYCLES,
  agentThinkCycles: RESEARCH_AGENT_THINK_CYCLES,
  agentForceReportMs: RESEARCH_AGENT_FORCE_REPORT_MS,
  agentTimeoutMs: RESEARCH_AGENT_TIMEOUT_MS,
  maxParallelAgents: MAX_PARALLEL_RESEARCH_AGENTS,
  orchestratorStepTokens: ORCHESTRATOR_STEP_TOKENS,
  agentStepTokens: RESEARCH_AGENT_STEP_TOKENS,
  intermediateReportTokens: INTERMEDIATE_REPORT_TOKENS,
  finalReportTokens: FINAL_REPORT_TOKENS,
  contextUserMessages: DEEP_RESEARCH_CONTEXT_USER_MESSAGES,
  citationCheckBatchSize: CITATION_CHECK_BATCH_SIZE,
  citationCheckMaxCalls: CITATION_CHECK_MAX_CALLS,
};
