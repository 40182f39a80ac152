import type { ToolCall, ToolDefinition } from '@toolbus/spec';
import type { ModelToolChoice } from '../llm/to-language-model-tools.ts';
import { extractToolCallsFromText } from '../recovery/extract-tool-calls-from-text.ts';
import type { ToolCallTextParser } from '../recovery/extracted-tool-call.ts';
import { looksLikeToolCallPayload } from '../recovery/looks-like-tool-call-payload.ts';
import type { LlmStepResult } from './llm-step.ts';
import type { StepPlacement } from './step-placement.ts';

/** Why recovery looked at a step's text (seed §5.3 triggers). */
export type RecoveryTrigger = 'required-tool-choice' | 'reasoning-only' | 'tool-call-markup';

/**
 * The seed's triggers: tool choice was required but no call came; the model reasoned but gave neither answer nor
 * calls; or its text looks like a tool-call payload (any dialect, zero-parameter calls included).
 */
export function recoveryTrigger(
  step: LlmStepResult,
  toolChoice: ModelToolChoice,
  definitions: readonly ToolDefinition[],
): RecoveryTrigger | undefined {
  if (step.toolCalls.length > 0 || definitions.length === 0) return undefined;
  if (toolChoice === 'required' || typeof toolChoice === 'object') return 'required-tool-choice';
  if (step.reasoning.trim() && !step.answer.trim()) return 'reasoning-only';
  for (const source of [step.answer, step.rawAnswer, step.reasoning]) {
    if (source && looksLikeToolCallPayload(source, definitions)) return 'tool-call-markup';
  }
  return undefined;
}

/**
 * Recovers tool calls from a step's text, trying the sources in the seed's order: the visible answer, the raw
 * answer (the only place markup removed by the stream filter survives), then the reasoning. The first source
 * that yields calls wins. Calls get fresh ids and tabs 0…n on the step's turn.
 */
export function recoverStepToolCalls(options: {
  readonly step: LlmStepResult;
  readonly definitions: readonly ToolDefinition[];
  readonly turn: number;
  readonly placement: StepPlacement;
  readonly parsers?: readonly ToolCallTextParser[];
}): ToolCall[] {
  const { step, definitions } = options;
  const sources = [step.answer, step.rawAnswer !== step.answer ? step.rawAnswer : '', step.reasoning];
  for (const source of sources) {
    if (!source.trim()) continue;
    const extracted = extractToolCallsFromText(
      source,
      definitions,
      options.parsers ? { parsers: options.parsers } : {},
    );
    if (extracted.length === 0) continue;
    return extracted.map((call, tab) => ({
      id: `recovered_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`,
      name: call.name,
      arguments: call.arguments,
      placement: options.placement.at({ turn: options.turn, tab }),
    }));
  }
  return [];
}
