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

/** A turn's data steps collapsed into the one message a non-streaming answer carries. */
export interface CollapsedScriptedMessage {
  readonly text: string;
  readonly reasoning: string;
  /** The calls in index order, each with its argument text joined. */
  readonly calls: readonly { readonly id: string; readonly name: string; readonly arguments: string }[];
}

/**
 * Joins a turn's text, reasoning and argument fragments: what every wire's non-streaming answer holds, whatever
 * shape it then gives them. A delta for a call that never started is dropped, as a streaming client would.
 */
export function collapseScriptedSteps(steps: readonly ScriptedDataStep[]): CollapsedScriptedMessage {
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let text = '';
  let reasoning = '';
  for (const step of steps) {
    if (step.type === 'text') text += step.text;
    else if (step.type === 'reasoning') reasoning += step.text;
    else if (step.type === 'tool-call-start')
      calls.set(step.index, { id: step.id, name: step.name, arguments: '' });
    else if (step.type === 'tool-call-delta') {
      const call = calls.get(step.index);
      if (call !== undefined) call.arguments += step.argumentsDelta;
    }
  }
  const ordered = [...calls.entries()].sort(([left], [right]) => left - right).map(([, call]) => call);
  return { text, reasoning, calls: ordered };
}
