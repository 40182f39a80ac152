// The scripted model of the replica-cluster runs (the chaos test, the scale-out proof, the scale-out benchmark):
// every turn searches once, then streams its answer in parts, so each turn runs a tool and streams long enough
// for a replica to be killed or a backend stopped in the middle of it.
import assert from 'node:assert/strict';
import type { ScriptedRequest, ScriptedStep } from '@toolbus/core/testing';
import { TITLE_INSTRUCTION } from '@toolbus/server';

/** What the model writes before its search call: the one message delta of a turn that is no part of its answer. */
export const SEARCH_NARRATION = 'Let me search. ';

export interface SearchThenAnswerOptions {
  /** How many parts the answer streams in (`part 0. ` …). */
  readonly parts: number;
  /** The pause before each part, in ms: a function is read at each answer (a benchmark slows some rounds). */
  readonly delayMs: number | (() => number);
  /** Runs before each answer streams: a gate a test opens, a count of the answers asked. */
  readonly beforeAnswer?: () => Promise<void> | void;
}

/**
 * The handler of a scripted model server: asked by a user, it narrates and calls `internal_search` (which the
 * request must offer); shown the result, it answers in `parts` parts.
 */
export function searchThenAnswer(
  options: SearchThenAnswerOptions,
): (request: ScriptedRequest) => Promise<ScriptedStep[]> {
  return async (request) => {
    // The replicas title each new chat after its first answer: that request is no step of a turn.
    if (request.messages.some((message) => message.role === 'system' && message.text === TITLE_INSTRUCTION)) {
      return [{ type: 'text', text: 'Replica chat' }];
    }
    const last = request.messages.at(-1);
    if (last?.role === 'user') {
      assert.ok(
        request.toolNames.includes('internal_search'),
        `tools offered: ${request.toolNames.join(', ')}`,
      );
      return [
        { type: 'text', text: SEARCH_NARRATION },
        { type: 'tool-call', id: 'call_1', name: 'internal_search', arguments: { queries: [last.text] } },
      ];
    }
    await options.beforeAnswer?.();
    const delayMs = typeof options.delayMs === 'number' ? options.delayMs : options.delayMs();
    const steps: ScriptedStep[] = [];
    for (let index = 0; index < options.parts; index += 1) {
      if (delayMs > 0) steps.push({ type: 'delay', ms: delayMs });
      steps.push({ type: 'text', text: `part ${index}. ` });
    }
    return steps;
  };
}
