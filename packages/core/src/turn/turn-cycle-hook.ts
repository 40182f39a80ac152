import type { ChatMessage, Tool, ToolCall } from '@toolbus/spec';
import type { ModelToolChoice } from '../llm/to-language-model-tools.ts';
import type { ToolCallOutcome } from '../runner/tool-call-outcome.ts';

/** What a turn's `beforeCycle` hook sees before a cycle starts. */
export interface TurnCycleState {
  /** 0 for the first cycle. */
  readonly cycle: number;
  /** The conversation so far, as the next model step will read it. */
  readonly messages: readonly ChatMessage[];
  /** The tool calls of the previous cycle (empty before the first). */
  readonly previousToolCalls: readonly ToolCall[];
}

/**
 * What a cycle offers, decided by the caller (the AI SDK's `prepareStep`): a sub-agent's cycle budget, its
 * think-call cap, its force-report timer and its per-cycle prompt live in the caller, while the loop itself stays
 * the one every chat turn runs.
 */
export interface TurnCycleDirective {
  /** End the loop before this cycle's model step (stop reason `cycle-limit`). */
  readonly stop?: boolean;
  /** The tools this cycle offers instead of the turn's. */
  readonly tools?: readonly Tool[];
  /** This cycle's tool choice instead of the default (`toolChoice` on the first cycle, then `auto`). */
  readonly toolChoice?: ModelToolChoice;
  /**
   * What this cycle's model step reads instead of the conversation (a system prompt that changes per cycle);
   * the turn's history is not changed by it.
   */
  readonly messages?: readonly ChatMessage[];
}

/** Called before each cycle; `undefined` keeps the defaults. */
export type TurnCycleHook = (state: TurnCycleState) => TurnCycleDirective | undefined;

/** What a turn's `afterCycle` hook sees when a cycle completed (its calls answered and in the history). */
export interface TurnCycleEnd {
  /** 0 for the first cycle. */
  readonly cycle: number;
  /** The calls the cycle ran (recovered ones included), in call order; empty when the cycle answered. */
  readonly toolCalls: readonly ToolCall[];
  /** One outcome per call of `toolCalls`, in call order. */
  readonly toolOutcomes: readonly ToolCallOutcome[];
  /** The messages the turn added so far, this cycle's included: what a checkpoint keeps. */
  readonly messages: readonly ChatMessage[];
  /** The placement turn the next packet of the loop goes to. */
  readonly nextTurn: number;
}

/**
 * Called after each completed cycle and awaited before the next one starts (the AI SDK's `onStepFinish` and
 * `stopWhen` in one): the place to checkpoint, and to end the loop (`{ stop: true }`, stop reason `finished`).
 * A cycle cut short by an error or a cancellation is not completed: the hook is not called for it.
 */
export type TurnCycleEndHook = (
  end: TurnCycleEnd,
) => Promise<{ readonly stop?: boolean } | undefined> | { readonly stop?: boolean } | undefined;
