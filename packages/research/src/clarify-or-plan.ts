import type { PacketSink } from '@toolbus/core';
import { type RunLlmStepOptions, runLlmStep } from '@toolbus/core/step';
import type { ChatMessage } from '@toolbus/spec';
import { DeepResearchError } from './deep-research-error.ts';
import type { DeepResearchPrompts } from './deep-research-prompts.ts';
import { createGeneratePlanTool } from './research-tools.ts';
import { asPlan, createRetypingSink } from './retyping-sink.ts';

/** What every model step of a Deep Research run shares: the model, the placement, the citations, the limits. */
export type ResearchStepBase = Pick<
  RunLlmStepOptions,
  'model' | 'placement' | 'citations' | 'batch' | 'citing' | 'signal' | 'stream'
>;

/** The first phase's outcome: questions for the user (the turn ends), or the plan and the turn after it. */
export type ClarifyOrPlanOutcome =
  | { readonly kind: 'clarification'; readonly answer: string }
  | { readonly kind: 'plan'; readonly plan: string; readonly turn: number };

/**
 * The run's first phase. Unless skipped, a clarification step may ask the user questions instead of calling
 * `generate_plan` (the turn then stops with `clarification`); then the plan step streams the plan as plan packets.
 */
export async function clarifyOrPlan(options: {
  readonly step: ResearchStepBase;
  readonly context: readonly ChatMessage[];
  readonly prompts: DeepResearchPrompts;
  readonly sink: PacketSink;
  readonly turn: number;
  readonly skipClarification: boolean;
}): Promise<ClarifyOrPlanOutcome> {
  const { step: common, context, prompts, sink } = options;
  let turn = options.turn;
  if (!options.skipClarification) {
    const step = await runLlmStep({
      ...common,
      messages: [{ role: 'system', content: prompts.clarification }, ...context],
      tools: [createGeneratePlanTool()],
      toolChoice: 'auto',
      turn,
      sink,
      announcedDocuments: new Set(),
    });
    if (step.error) throw step.error;
    if (step.toolCalls.length === 0 && step.answer.trim()) {
      sink.emitAt({ turn: step.nextTurn - 1, tab: 0 }, { type: 'stop', reason: 'clarification' });
      return { kind: 'clarification', answer: step.answer };
    }
    if (step.reasoning) turn = step.nextTurn - 1;
  }

  const planStep = await runLlmStep({
    ...common,
    messages: [
      { role: 'system', content: prompts.plan },
      ...context,
      { role: 'user', content: prompts.planReminder },
    ],
    tools: [],
    toolChoice: 'none',
    turn,
    sink: createRetypingSink({ target: sink, retype: asPlan }),
    announcedDocuments: new Set(),
  });
  if (planStep.error) throw planStep.error;
  const plan = planStep.answer.trim();
  if (!plan) throw new DeepResearchError({ code: 'no_plan', message: 'The plan step wrote no plan.' });
  sink.emitAt({ turn: planStep.nextTurn - 1, tab: 0 }, { type: 'section-end' });
  return { kind: 'plan', plan, turn: planStep.nextTurn };
}
