import type { LanguageModelV4 } from '@ai-sdk/provider';
import { type ModelEnvironment, resolveLanguageModel } from '@toolbus/core';
import { createNodeHttpFetch } from '@toolbus/core/node';

/**
 * Resolves model names (`provider:model`) to models, one model object per name for the process: a provider's
 * model builds its stream-chunk schemas when it is made (about a millisecond), and it holds no per-call state, so
 * every turn can share it. Every model streams over one kept-alive connection pool read over node:http: undici's
 * fetch costs several times more per streamed chunk, and each token is a chunk (see createNodeHttpFetch).
 */
export function createModelResolver(environment: ModelEnvironment): (name: string) => LanguageModelV4 {
  const resolved = new Map<string, LanguageModelV4>();
  const modelFetch = createNodeHttpFetch();
  return (name) => {
    let model = resolved.get(name);
    if (model === undefined) {
      model = resolveLanguageModel(name, { env: environment, fetch: modelFetch });
      resolved.set(name, model);
    }
    return model;
  };
}
