// One model step, outside the turn loop (`@toolbus/core/step`). Every loop in toolbus is `runChatTurn` (a
// sub-agent configures it with `beforeCycle` / `afterCycle`); this subpath is for callers that need a single step
// and read its parts themselves: Deep Research's clarification, plan and report steps, its citation judge, and
// the coding agent's answer step (`runStandaloneStep` / `runWriteUpStep` when the step stands alone). Tool calls of a step are not run here: that is the loop's job.
export type { LlmStepResult, RunLlmStepOptions } from './turn/llm-step.ts';
export { runLlmStep } from './turn/llm-step.ts';
export type {
  RecoveredStep,
  RecoverStepOptions,
  RecoveryTrigger,
} from './turn/recover-step-tool-calls.ts';
export { recoverStep, recoverStepToolCalls, recoveryTrigger } from './turn/recover-step-tool-calls.ts';
export type { StandaloneStepOptions, WriteUpStepOptions } from './turn/standalone-step.ts';
export { runStandaloneStep, runWriteUpStep } from './turn/standalone-step.ts';
export { StepPlacement } from './turn/step-placement.ts';
