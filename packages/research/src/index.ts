export type { CheckCitationSupportOptions } from './check-citation-support.ts';
export { checkCitationSupport, LEXICAL_SUPPORT_THRESHOLD } from './check-citation-support.ts';
export { checkContextGate } from './check-context-gate.ts';
export { checkPacketStream } from './check-packet-stream.ts';
export type { DeepResearchCheckpoint, DeepResearchResume } from './deep-research-checkpoint.ts';
export { parseDeepResearchCheckpoint } from './deep-research-checkpoint.ts';
export type { DeepResearchErrorCode } from './deep-research-error.ts';
export { DeepResearchError } from './deep-research-error.ts';
export * from './deep-research-limits.ts';
export type { DeepResearchPrompts } from './deep-research-prompts.ts';
export { DEFAULT_DEEP_RESEARCH_PROMPTS, fillPrompt, joinNames } from './deep-research-prompts.ts';
export { createReasoningTextSink } from './reasoning-text-sink.ts';
export type { ResearchAgentToolOptions } from './research-agent-tool.ts';
export { createResearchAgentTool, timedOutReportText } from './research-agent-tool.ts';
export {
  createGenerateReportTool,
  createThinkTool,
  GENERATE_PLAN_TOOL_NAME,
  GENERATE_REPORT_TOOL_NAME,
  RESEARCH_AGENT_TOOL_NAME,
  researchToolsOf,
  THINK_TOOL_NAME,
  THINK_TOOL_RESPONSE,
} from './research-tools.ts';
export type { PacketRetype } from './retyping-sink.ts';
export { createRetypingSink } from './retyping-sink.ts';
export type { DeepResearchResult, DeepResearchTurn, RunDeepResearchOptions } from './run-deep-research.ts';
export { runDeepResearch } from './run-deep-research.ts';
export type { NestedAgentOptions } from './run-nested-agent.ts';
export { runNestedAgent } from './run-nested-agent.ts';
export type { ResearchAgentOutcome } from './run-orchestrator.ts';
export type { ResearchAgentReport, RunResearchAgentOptions } from './run-research-agent.ts';
export { RESEARCH_AGENT_FAILED_TEXT, runResearchAgent } from './run-research-agent.ts';
export type { RunTurnOptions, TurnResearchOptions } from './run-turn.ts';
export { runTurn } from './run-turn.ts';
