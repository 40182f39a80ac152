import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { FetchFunction } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { LazyLanguageModel } from './lazy-language-model.ts';
import type { ModelConfig } from './model-config.ts';
import { rememberModelEndpoint } from './model-endpoint-registry.ts';
import { ModelConfigurationError } from './model-errors.ts';
import type { ModelEndpoint, ModelEnvironment } from './resolve-model-endpoint.ts';
import { resolveModelEndpoint } from './resolve-model-endpoint.ts';
import { validateChunksSynchronously } from './synchronous-chunk-validation.ts';

/** Options for {@link resolveLanguageModel}. */
export interface ResolveLanguageModelOptions {
  /** Environment to read `TOOLBUS_MODEL`, keys and base URLs from; defaults to `process.env`. */
  readonly env?: ModelEnvironment;
  /** The fetch the provider package uses (a guarded fetch, a test fetch); defaults to the global one. */
  readonly fetch?: FetchFunction;
}

/**
 * Turns a model string (`openai:gpt-4.1`, `anthropic:claude-sonnet-4-5`, `ollama:qwen2.5:7b`,
 * `openai-compatible:<base url>#<model>`, `vllm:…`, `lmstudio:…`, `llamacpp:…`), a {@link ModelConfig}, or nothing
 * (the configured or local default, see {@link resolveModelEndpoint}) into an AI SDK language model. Throws
 * {@link ModelConfigurationError} naming the missing key variable, never its value.
 */
export function resolveLanguageModel(
  spec: string | ModelConfig | undefined,
  options: ResolveLanguageModelOptions = {},
): LanguageModelV4 {
  const env = options.env ?? processEnvironment();
  const endpoint = resolveModelEndpoint(spec, env);
  const apiKey = readApiKey(endpoint, env);
  const fetch = options.fetch;
  const model = createModel({ endpoint, apiKey, fetch });
  rememberModelEndpoint(model, endpoint);
  return model;
}

/**
 * The model, with its provider package loaded on the first call (see {@link LazyLanguageModel}): resolving a
 * model string at start costs no module load, and a process that never calls the model never loads one.
 */
function createModel(options: {
  endpoint: ModelEndpoint;
  apiKey: string | undefined;
  fetch: FetchFunction | undefined;
}): LanguageModelV4 {
  const { endpoint, apiKey, fetch } = options;
  // Every setting is passed explicitly: the provider packages would otherwise read process.env themselves.
  const common = { baseURL: endpoint.baseUrl, ...omitUndefined({ fetch }) };
  const modelId = endpoint.model;
  const lazy = (provider: string, load: () => Promise<LanguageModelV4>) =>
    new LazyLanguageModel({ provider, modelId, load });
  switch (endpoint.provider) {
    case 'openai':
      return lazy('openai.chat', async () => {
        const { createOpenAI } = await import('@ai-sdk/openai');
        return createOpenAI({ ...common, apiKey: apiKey ?? '' }).chat(modelId);
      });
    case 'anthropic':
      return lazy('anthropic.messages', async () => {
        const { createAnthropic } = await import('@ai-sdk/anthropic');
        return createAnthropic({ ...common, apiKey: apiKey ?? '' }).messages(modelId);
      });
    default:
      return lazy(`${endpoint.provider}.chat`, async () => {
        // Loaded with the provider package: the direct reader uses its internals.
        const [{ createOpenAICompatible }, { DirectSseReads }] = await Promise.all([
          import('@ai-sdk/openai-compatible'),
          import('./direct-sse-language-model.ts'),
        ]);
        // The provider builds each request and its errors; the stream's bytes are read by DirectSseReads.
        const direct = new DirectSseReads(fetch);
        const model = createOpenAICompatible({
          ...common,
          fetch: direct.fetch,
          name: endpoint.provider,
          includeUsage: true,
          ...omitUndefined({ apiKey }),
        }).chatModel(modelId);
        const validate = validateChunksSynchronously(model);
        return validate === undefined ? model : direct.wrap(model, validate);
      });
  }
}

function readApiKey(endpoint: ModelEndpoint, env: ModelEnvironment): string | undefined {
  const variable = endpoint.apiKeyVariable;
  if (variable === undefined) return undefined;
  const value = env[variable]?.trim();
  if (value !== undefined && value !== '') return value;
  if (endpoint.apiKeyRequired) {
    throw new ModelConfigurationError({
      message: `${endpoint.provider}:${endpoint.model} needs an API key: set ${variable}`,
      variable,
    });
  }
  return undefined;
}

function processEnvironment(): ModelEnvironment {
  // Read through globalThis so the package root stays importable where `process` does not exist.
  const process = (globalThis as { process?: { env?: ModelEnvironment } }).process;
  return process?.env ?? {};
}
