import { ToolbusError } from '@toolbus/spec';

/**
 * Why a Deep Research run could not go on:
 * - `context_too_small`: the model's input window is under the minimum (refused before any model call);
 * - `context_unknown`: the model's input window was not given, so the gate cannot pass it;
 * - `no_plan`: the plan step wrote nothing;
 * - `orchestrator_no_tool_calls`: the first orchestrator step called no tool;
 * - `no_report`: the final report step wrote nothing.
 */
export type DeepResearchErrorCode =
  | 'context_too_small'
  | 'context_unknown'
  | 'no_plan'
  | 'orchestrator_no_tool_calls'
  | 'no_report';

/** A Deep Research failure with a stable code and a message a person can act on. */
export class DeepResearchError extends ToolbusError<DeepResearchErrorCode> {
  static override readonly errorName = 'DeepResearchError';
}
