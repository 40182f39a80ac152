import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ModelEndpoint } from './resolve-model-endpoint.ts';

// Models resolved by toolbus remember where they live, so a connection failure can say what to start or set.
const endpoints = new WeakMap<LanguageModelV4, ModelEndpoint>();

/** Records the endpoint a resolved model talks to. */
export function rememberModelEndpoint(model: LanguageModelV4, endpoint: ModelEndpoint): void {
  endpoints.set(model, endpoint);
}

/** The endpoint of a model resolved by toolbus, or undefined for a model built elsewhere. */
export function modelEndpointOf(model: LanguageModelV4): ModelEndpoint | undefined {
  return endpoints.get(model);
}
