import type { ToolCall, ToolDefinition } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { ModelToolChoice } from '../llm/to-language-model-tools.ts';
import { callCutByTokenLimit } from '../recovery/call-cut-by-token-limit.ts';
import { withCallsCutWhileStreaming } from '../recovery/calls-cut-while-streaming.ts';
import { callsEndingReasoning } from '../recovery/calls-ending-reasoning.ts';
import { splitTemplateOpenedThinking } from '../recovery/dialects/thinking-block-parser.ts';
import { extractLocatedToolCallsFromText } from '../recovery/extract-tool-calls-from-text.ts';
import type { ToolCallTextParser } from '../recovery/extracted-tool-call.ts';
import { imitatedResultStart } from '../recovery/imitated-tool-result.ts';
import { looksLikeToolCallPayload } from '../recovery/looks-like-tool-call-payload.ts';
import { withoutToolCallText } from '../recovery/without-tool-call-text.ts';
import type { LlmStepResult } from './llm-step.ts';
import type { StepPlacement } from './step-placement.ts';

/** Why recovery looked at a step's text. */
export type RecoveryTrigger = 'required-tool-choice' | 'reasoning-only' | 'tool-call-markup';

/**
 * When recovery runs: tool choice was required but no call came; the model reasoned but gave neither answer nor
 * calls; or its text looks like a tool-call payload (any dialect, zero-parameter calls included).
 */
export function recoveryTrigger(
  step: LlmStepResult,
  toolChoice: ModelToolChoice,
  definitions: readonly ToolDefinition[],
  parsers?: readonly ToolCallTextParser[],
): RecoveryTrigger | undefined {
  if (step.toolCalls.length > 0 || definitions.length === 0) return undefined;
  if (toolChoice === 'required' || typeof toolChoice === 'object') return 'required-tool-choice';
  // The filter cut text because recovery read a call in it: that call is recovered, whatever the text looks like.
  if ((step.cutWhileStreaming?.length ?? 0) > 0) return 'tool-call-markup';
  if (step.reasoning.trim() && !step.answer.trim()) return 'reasoning-only';
  // The raw answer is the visible one whenever the stream filter hid nothing (most steps): read that text once.
  const sources =
    step.rawAnswer === step.answer
      ? [step.answer, step.reasoning]
      : [step.answer, step.rawAnswer, step.reasoning];
  for (const source of sources) {
    if (source && looksLikeToolCallPayload(source, definitions, parsers)) return 'tool-call-markup';
  }
  return undefined;
}

/** Options for {@link recoverStep} and {@link recoverStepToolCalls}. */
export interface RecoverStepOptions {
  readonly step: LlmStepResult;
  readonly definitions: readonly ToolDefinition[];
  readonly turn: number;
  readonly placement: StepPlacement;
  readonly parsers?: readonly ToolCallTextParser[];
  /** Dialects tried first (the model's profile). */
  readonly preferredDialects?: readonly string[];
}

/** What recovery made of a step's text. */
export interface RecoveredStep {
  /** The recovered calls, with fresh ids and tabs 0…n on the step's turn. */
  readonly calls: ToolCall[];
  /** The step's visible answer without the recovered calls' text: what the message really says. */
  readonly prose: string;
  /** Whether some recovered call was in text the user already saw (then `prose` replaces it on screen). */
  readonly shown: boolean;
  /**
   * The calls of `calls` that the output token limit cut off: the step ended on `length` while the call was
   * still being written (its text runs to the end), so its arguments were completed by repair, not by the
   * model. They must not run.
   */
  readonly cutOff: readonly ToolCall[];
}

/**
 * Recovers tool calls from a step's text. The raw answer comes first: it holds everything the model wrote as
 * text, the visible answer plus the markup the stream filter hid; the reasoning is the last source, used only
 * when the answer holds no call. The calls found in the visible answer are cut out of it, giving the prose the
 * history keeps and, when they were shown, the text a retraction redraws.
 */
export function recoverStep(options: RecoverStepOptions): RecoveredStep {
  const { step, definitions } = options;
  const extractOptions = {
    ...omitUndefined({ parsers: options.parsers, preferredDialects: options.preferredDialects }),
  };
  const locate = (text: string) =>
    text.trim() ? extractLocatedToolCallsFromText(text, definitions, extractOptions) : [];
  let source = step.rawAnswer;
  let extracted = locate(source);
  // The calls of the text the filter cut count even when the reading of the whole, a profile's dialects first,
  // misses them (their text was not shown): read again with every dialect.
  if ((options.preferredDialects?.length ?? 0) > 0 && step.cutWhileStreaming !== undefined) {
    const readAll = (text: string) =>
      extractLocatedToolCallsFromText(text, definitions, omitUndefined({ parsers: options.parsers }));
    extracted = withCallsCutWhileStreaming(source, extracted, step.cutWhileStreaming, readAll);
  }
  for (const next of step.answer !== step.rawAnswer ? [step.answer, step.reasoning] : [step.reasoning]) {
    if (extracted.length > 0) break;
    source = next;
    extracted = locate(source);
  }
  // In the reasoning, only the calls that end it were made; the others were drafts or quotes.
  if (source === step.reasoning && source !== step.rawAnswer)
    extracted = callsEndingReasoning(source, extracted, source.length);
  if (extracted.length === 0) return { calls: [], prose: step.answer, shown: false, cutOff: [] };
  const shownCalls = locate(step.answer);
  const cut = step.finishReason === 'length' ? callCutByTokenLimit(extracted, source) : undefined;
  const cutOff: ToolCall[] = [];
  const calls = extracted.map((call, tab) => {
    const recovered: ToolCall = {
      id: `recovered_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`,
      name: call.name,
      arguments: call.arguments,
      placement: options.placement.at({ turn: options.turn, tab }),
    };
    if (call === cut) cutOff.push(recovered);
    return recovered;
  });
  if (shownCalls.length === 0) {
    // Thinking the template opened ends at a lone `</think>`; shown as it streamed, it is retracted now.
    const imitated = imitatedResultStart(step.answer, [{ name: '', arguments: {}, start: 0, end: 0 }]);
    const answer = imitated >= 0 ? step.answer.slice(0, imitated) : step.answer;
    const prose = splitTemplateOpenedThinking(answer)?.answer ?? answer;
    return { calls, prose, shown: prose !== step.answer, cutOff };
  }
  // Thinking the template opened ends at a lone `</think>` before the calls: it is not part of the message; nor
  // is a result the model invented for its own call (shown as it streamed, retracted now).
  const imitated = imitatedResultStart(step.answer, shownCalls);
  const prose = withoutToolCallText(imitated >= 0 ? step.answer.slice(0, imitated) : step.answer, shownCalls);
  return { calls, prose: splitTemplateOpenedThinking(prose)?.answer ?? prose, shown: true, cutOff };
}

/** The calls of {@link recoverStep}. */
export function recoverStepToolCalls(options: RecoverStepOptions): ToolCall[] {
  return recoverStep(options).calls;
}
