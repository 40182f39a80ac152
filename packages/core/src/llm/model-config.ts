import { ModelConfigurationError } from './model-errors.ts';

/** The providers a model string can name. */
export type ModelProvider =
  | 'openai'
  | 'anthropic'
  | 'ollama'
  | 'openai-compatible'
  | 'vllm'
  | 'lmstudio'
  | 'llamacpp';

/** A model chosen by configuration (a config file, or the parsed form of a model string). */
export interface ModelConfig {
  readonly provider: ModelProvider;
  /** The provider's model id, e.g. `gpt-4.1`, `qwen2.5:7b`. */
  readonly model: string;
  /** Overrides the provider's base URL (for OpenAI-style servers: the URL that ends in `/v1`). */
  readonly baseUrl?: string;
  /** Name of the environment variable that holds the API key, instead of the provider's usual one. */
  readonly apiKeyEnv?: string;
}

const providers: readonly ModelProvider[] = [
  'openai',
  'anthropic',
  'ollama',
  'openai-compatible',
  'vllm',
  'lmstudio',
  'llamacpp',
];

/** Is `value` one of the providers toolbus can resolve? */
export function isModelProvider(value: string): value is ModelProvider {
  return (providers as readonly string[]).includes(value);
}

/**
 * Parses `provider:model` (`openai:gpt-4.1`, `anthropic:claude-sonnet-4-5`, `ollama:qwen2.5:7b`, `vllm:<model>`,
 * `lmstudio:<model>`, `llamacpp:<model>`) and `openai-compatible:<base url>#<model>`. The model id keeps any
 * further colons (Ollama tags). Throws {@link ModelConfigurationError} on anything else.
 */
export function parseModelString(modelString: string): ModelConfig {
  const trimmed = modelString.trim();
  const separator = trimmed.indexOf(':');
  if (separator <= 0) {
    throw new ModelConfigurationError({
      message: `model "${trimmed}" has no provider: write it as <provider>:<model>, e.g. ollama:qwen2.5:7b (providers: ${providers.join(', ')})`,
    });
  }
  const provider = trimmed.slice(0, separator).toLowerCase();
  const rest = trimmed.slice(separator + 1);
  if (!isModelProvider(provider)) {
    throw new ModelConfigurationError({
      message: `unknown model provider "${provider}" (providers: ${providers.join(', ')})`,
    });
  }
  if (provider === 'openai-compatible') {
    const hash = rest.lastIndexOf('#');
    const baseUrl = hash === -1 ? '' : rest.slice(0, hash);
    const model = hash === -1 ? '' : rest.slice(hash + 1);
    if (baseUrl === '' || model === '') {
      throw new ModelConfigurationError({
        message:
          'write an OpenAI-compatible model as openai-compatible:<base url>#<model>, e.g. openai-compatible:http://localhost:8000/v1#qwen2.5-7b',
      });
    }
    return { provider, model, baseUrl: validateBaseUrl(baseUrl) };
  }
  if (rest.trim() === '') {
    throw new ModelConfigurationError({ message: `model "${trimmed}" names no model after "${provider}:"` });
  }
  return { provider, model: rest };
}

/** Checks that a base URL is an absolute http(s) URL and returns it without a trailing slash. */
export function validateBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (cause) {
    throw new ModelConfigurationError({ message: `model base URL "${baseUrl}" is not a URL`, cause });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ModelConfigurationError({ message: `model base URL "${baseUrl}" must use http or https` });
  }
  if (url.username !== '' || url.password !== '') {
    // Credentials in a URL end up in logs and error messages; keys belong in environment variables.
    throw new ModelConfigurationError({
      message: 'model base URL must not contain credentials; use an API key variable',
    });
  }
  return baseUrl.replace(/\/+$/, '');
}
