import type { ScriptedFinishReason, ScriptedStep } from './scripted-turn.ts';
import { chunkText } from './scripted-turn.ts';

/** A step that puts data on the wire. */
export type ScriptedDataStep = Extract<
  ScriptedStep,
  { type: 'text' | 'reasoning' | 'tool-call-start' | 'tool-call-delta' | 'raw' }
>;

/** A step after `tool-call` shorthands were expanded. */
export type ExpandedStep = Exclude<ScriptedStep, { type: 'tool-call' }>;

/** How the turn ends on the wire. */
export interface ScriptedFinish {
  readonly reason: ScriptedFinishReason;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** Replaces each `tool-call` shorthand by a start and its argument deltas; numbers calls in order of start. */
export function expandScriptedSteps(steps: readonly ScriptedStep[]): ExpandedStep[] {
  const expanded: ExpandedStep[] = [];
  let nextIndex = 0;
  for (const step of steps) {
    if (step.type === 'tool-call-start') nextIndex = Math.max(nextIndex, step.index + 1);
    if (step.type !== 'tool-call') {
      expanded.push(step);
      continue;
    }
    const index = step.index ?? nextIndex;
    nextIndex = Math.max(nextIndex, index + 1);
    expanded.push({ type: 'tool-call-start', index, id: step.id, name: step.name });
    const argumentText = typeof step.arguments === 'string' ? step.arguments : JSON.stringify(step.arguments);
    const pieces = step.chunkSize === undefined ? [argumentText] : chunkText(argumentText, step.chunkSize);
    for (const piece of pieces) {
      if (piece !== '') expanded.push({ type: 'tool-call-delta', index, argumentsDelta: piece });
    }
  }
  return expanded;
}

/** The finish a turn ends with: its own `finish` step, or `tool-calls` when it made calls, else `stop`. */
export function scriptedFinishOf(steps: readonly ExpandedStep[]): ScriptedFinish {
  let reason: ScriptedFinishReason = steps.some((step) => step.type === 'tool-call-start')
    ? 'tool-calls'
    : 'stop';
  let inputTokens = 10;
  let outputTokens = steps.filter((step) => step.type !== 'delay').length;
  for (const step of steps) {
    if (step.type !== 'finish') continue;
    if (step.reason !== undefined) reason = step.reason;
    if (step.usage?.inputTokens !== undefined) inputTokens = step.usage.inputTokens;
    if (step.usage?.outputTokens !== undefined) outputTokens = step.usage.outputTokens;
  }
  return { reason, inputTokens, outputTokens };
}
