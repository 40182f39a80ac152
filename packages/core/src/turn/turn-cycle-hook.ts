import type { ChatMessage, Tool, ToolCall } from '@toolbus/spec';
import type { ModelToolChoice } from '../llm/to-language-model-tools.ts';

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
 * What a cycle offers, decided by the caller: a sub-agent's cycle budget, its think-call cap and its
 * force-report timer live in the caller, while the loop itself stays the one every chat turn runs.
 */
export interface TurnCycleDirective {
  /** End the loop before this cycle's model step (stop reason `cycle-limit`). */
  readonly stop?: boolean;
  /** The tools this cycle offers instead of the turn's. */
  readonly tools?: readonly Tool[];
  /** This cycle's tool choice instead of the default (`toolChoice` on the first cycle, then `auto`). */
  readonly toolChoice?: ModelToolChoice;
}

/** Called before each cycle; `undefined` keeps the defaults. */
export type TurnCycleHook = (state: TurnCycleState) => TurnCycleDirective | undefined;
