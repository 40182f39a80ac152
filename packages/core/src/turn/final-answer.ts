import type { ToolDefinition } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { splitTemplateOpenedThinking } from '../recovery/dialects/thinking-block-parser.ts';
import type { ToolCallTextParser } from '../recovery/extracted-tool-call.ts';
import { holdsToolCall } from '../recovery/holds-tool-call.ts';
import { withoutToolCallMarkupTags } from '../recovery/tool-call-markup-marker.ts';
import {
  defaultToolCallMarkupMarkers,
  defaultToolCallParsers,
  toolCallMarkupMarkersOf,
} from '../recovery/tool-call-parser-registry.ts';
import { isUnreadableCallMarkup } from '../recovery/unreadable-call-markup.ts';
import { AnswerWriter } from './answer-writer.ts';
import type { LlmStepResult } from './llm-step.ts';
import type { TurnState } from './turn-state.ts';

/** Options for {@link finishWithAnswer}. */
export interface FinishWithAnswerOptions {
  readonly state: TurnState;
  readonly step: LlmStepResult;
  readonly definitions: readonly ToolDefinition[];
  readonly parsers?: readonly ToolCallTextParser[];
}

/**
 * Ends the turn with the step's answer, and appends it to the history. Empty-answer recovery: when the markup
 * filter left nothing visible but what the model wrote holds no tool call (prose inside a `<function_calls>`
 * block, say), its text without the markup tags is shown rather than an empty answer.
 */
export function finishWithAnswer(options: FinishWithAnswerOptions): string {
  const { state, step, definitions } = options;
  const parsers = options.parsers ?? defaultToolCallParsers;
  const final = finalAnswerText(step, definitions, parsers);
  let answer = final.recovered ?? step.answer;
  if (final.recovered !== undefined)
    writerFor(state, step).write(state.placement.at({ turn: step.nextTurn - 1, tab: 0 }), answer);
  let reasoning = step.reasoning;
  // Thinking the template opened in the prompt ends at a lone `</think>`: the answer is what follows it.
  const thinking = splitTemplateOpenedThinking(answer);
  if (thinking) {
    answer = thinking.answer;
    reasoning = [reasoning, thinking.thinking].filter((part) => part.trim() !== '').join('\n\n');
    writerFor(state, step).replace(state.placement.at({ turn: step.nextTurn - 1, tab: 0 }), answer);
  }
  state.append({
    role: 'assistant',
    content: answer,
    ...omitUndefined({ reasoning: reasoning || undefined }),
  });
  return answer;
}

/**
 * The text a step without calls ends the turn with: `recovered` is the raw answer without its markup tags when
 * the markup filter left nothing visible but the model wrote no call (prose inside a `<function_calls>` block),
 * undefined otherwise; `answer` is the final text once thinking the template opened is split off. A call the
 * model wrote in its call channel that nobody can read stays off the screen (see `isUnreadableCallMarkup`).
 */
export function finalAnswerText(
  step: Pick<LlmStepResult, 'answer' | 'rawAnswer'>,
  definitions: readonly ToolDefinition[],
  parsers: readonly ToolCallTextParser[] = defaultToolCallParsers,
): { readonly recovered: string | undefined; readonly answer: string } {
  let recovered: string | undefined;
  if (
    !step.answer.trim() &&
    step.rawAnswer.trim() &&
    !holdsToolCall(step.rawAnswer, definitions, parsers) &&
    !isUnreadableCallMarkup(step.rawAnswer)
  ) {
    const markers =
      parsers === defaultToolCallParsers ? defaultToolCallMarkupMarkers : toolCallMarkupMarkersOf(parsers);
    recovered = withoutToolCallMarkupTags(step.rawAnswer, markers).trim();
  }
  const answer = recovered ?? step.answer;
  return { recovered, answer: splitTemplateOpenedThinking(answer)?.answer ?? answer };
}

function writerFor(state: TurnState, step: LlmStepResult): AnswerWriter {
  return new AnswerWriter({
    sink: state.sink,
    citations: state.citations,
    announcedDocuments: state.announcedDocuments,
    citing: true,
    started: step.answerStarted,
  });
}
