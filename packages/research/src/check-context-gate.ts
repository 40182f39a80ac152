import { DeepResearchError } from './deep-research-error.ts';

/**
 * Refuses a model whose input window is too small for Deep Research (a plan, several reports and the final
 * report must fit), or unknown: the run fails before any model call rather than half-way.
 */
export function checkContextGate(contextWindowTokens: number | undefined, minContextTokens: number): void {
  if (contextWindowTokens === undefined) {
    throw new DeepResearchError({
      code: 'context_unknown',
      message: `Deep Research needs the model's input window (contextWindowTokens) to check it holds at least ${minContextTokens} tokens; it was not given.`,
    });
  }
  if (contextWindowTokens < minContextTokens) {
    throw new DeepResearchError({
      code: 'context_too_small',
      message: `Deep Research needs a model with at least ${minContextTokens} input tokens; this one has ${contextWindowTokens}. Use a model with a larger context window.`,
    });
  }
}
