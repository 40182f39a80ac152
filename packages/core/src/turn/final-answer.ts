import type { ToolDefinition } from '@toolbus/spec';
import { splitTemplateOpenedThinking } from '../recovery/dialects/thinking-block-parser.ts';
import type { ToolCallTextParser } from '../recovery/extracted-tool-call.ts';
import { holdsToolCall } from '../recovery/holds-tool-call.ts';
import { withoutToolCallMarkupTags } from '../recovery/tool-call-markup-marker.ts';
import {
  defaultToolCallMarkupMarkers,
  defaultToolCallParsers,
  toolCallMarkupMarkersOf,
} from '../recovery/tool-call-parser-registry.ts';
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
  let answer = step.answer;
  if (!answer.trim() && step.rawAnswer.trim() && !holdsToolCall(step.rawAnswer, definitions, parsers)) {
    const markers =
      parsers === defaultToolCallParsers ? defaultToolCallMarkupMarkers : toolCallMarkupMarkersOf(parsers);
    answer = withoutToolCallMarkupTags(step.rawAnswer, markers).trim();
    writerFor(state, step).write(state.placement.at({ turn: step.nextTurn - 1, tab: 0 }), answer);
  }
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
    ...(reasoning ? { reasoning } : {}),
  });
  return answer;
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
