import type { ScriptedDataStep, ScriptedFinish } from './expand-scripted-steps.ts';

/** How one API writes a scripted turn: as server-sent events, or as one JSON answer. */
export interface ScriptedWire {
  /** Events that open the stream (before the first step). */
  begin(): string;
  /** Events for one data step. */
  write(step: ScriptedDataStep): string;
  /** Events that close the stream. */
  end(finish: ScriptedFinish): string;
  /** The whole turn as the non-streaming JSON answer. */
  complete(steps: readonly ScriptedDataStep[], finish: ScriptedFinish): unknown;
}
