import type { ModelConfig, ModelProvider } from './model-config.ts';
import { isModelProvider, parseModelString, validateBaseUrl } from './model-config.ts';
import { ModelConfigurationError } from './model-errors.ts';

/** Environment variables, as `process.env` has them. Injected so tests and servers never read the real ones. */
export type ModelEnvironment = Readonly<Record<string, string | undefined>>;

/** The model used when nothing is configured: a small model on the local Ollama server. */
export const DEFAULT_LOCAL_MODEL = 'qwen2.5:7b';
/** Ollama's OpenAI-compatible endpoint when `OLLAMA_HOST` is not set. */
export const DEFAULT_OLLAMA_BASE_URL = 'http://localhost:11434/v1';

/** Where a model lives and how to authenticate, without the key itself. */
export interface ModelEndpoint {
  readonly provider: ModelProvider;
  readonly model: string;
  /** Base URL the provider package appends its paths to (`…/v1`). */
  readonly baseUrl: string;
  /** Name of the variable holding the key, when one is used. */
  readonly apiKeyVariable: string | undefined;
  /** True when the key variable must be set (hosted providers, or an explicit `apiKeyEnv`). */
  readonly apiKeyRequired: boolean;
  /** True when nothing was configured and the local default was chosen. */
  readonly isDefault: boolean;
  /** What the user can do when nothing answers there; completes "no model answers at <origin> — …". */
  readonly unavailableHint: string;
}

const localBaseUrls: Partial<Record<ModelProvider, string>> = {
  vllm: 'http://localhost:8000/v1',
  lmstudio: 'http://localhost:1234/v1',
  llamacpp: 'http://localhost:8080/v1',
};

const hints: Record<ModelProvider, string> = {
  openai: 'check the network and OPENAI_BASE_URL',
  anthropic: 'check the network and ANTHROPIC_BASE_URL',
  ollama: 'set TOOLBUS_MODEL or start Ollama',
  'openai-compatible': 'set TOOLBUS_MODEL or start the server',
  vllm: 'set TOOLBUS_MODEL or start vLLM (vllm serve)',
  lmstudio: "set TOOLBUS_MODEL or start LM Studio's server",
  llamacpp: 'set TOOLBUS_MODEL or start llama-server',
};

/**
 * Decides which model a configuration means and where it lives. `spec` is a model string, a {@link ModelConfig},
 * or undefined: then `TOOLBUS_MODEL`, else OpenAI when `OPENAI_API_KEY` is set, else Anthropic when
 * `ANTHROPIC_API_KEY` is set, else the local OpenAI-compatible server on Ollama's port.
 */
export function resolveModelEndpoint(
  spec: string | ModelConfig | undefined,
  env: ModelEnvironment,
): ModelEndpoint {
  let config: ModelConfig;
  let isDefault = false;
  if (spec === undefined) {
    const configured = nonEmpty(env.TOOLBUS_MODEL);
    if (configured !== undefined) config = parseModelString(configured);
    else if (nonEmpty(env.OPENAI_API_KEY) !== undefined) config = { provider: 'openai', model: 'gpt-4.1' };
    else if (nonEmpty(env.ANTHROPIC_API_KEY) !== undefined) {
      config = { provider: 'anthropic', model: 'claude-sonnet-4-5' };
    } else {
      config = { provider: 'ollama', model: DEFAULT_LOCAL_MODEL };
      isDefault = true;
    }
  } else if (typeof spec === 'string') {
    config = parseModelString(spec);
  } else {
    config = checkConfig(spec);
  }
  const provider = config.provider;
  const baseUrl = validateBaseUrl(config.baseUrl ?? defaultBaseUrl(provider, env));
  const explicitKeyVariable = config.apiKeyEnv;
  const hosted = provider === 'openai' || provider === 'anthropic';
  const apiKeyVariable =
    explicitKeyVariable ??
    (provider === 'openai'
      ? 'OPENAI_API_KEY'
      : provider === 'anthropic'
        ? 'ANTHROPIC_API_KEY'
        : provider === 'ollama'
          ? undefined
          : 'TOOLBUS_API_KEY');
  return {
    provider,
    model: config.model,
    baseUrl,
    apiKeyVariable,
    apiKeyRequired: hosted || explicitKeyVariable !== undefined,
    isDefault,
    unavailableHint: hints[provider],
  };
}

function checkConfig(config: ModelConfig): ModelConfig {
  if (typeof config !== 'object' || config === null) {
    throw new ModelConfigurationError({ message: 'model configuration must be a string or an object' });
  }
  if (typeof config.provider !== 'string' || !isModelProvider(config.provider)) {
    throw new ModelConfigurationError({ message: `unknown model provider "${String(config.provider)}"` });
  }
  if (typeof config.model !== 'string' || config.model.trim() === '') {
    throw new ModelConfigurationError({ message: 'model configuration names no model' });
  }
  if (config.provider === 'openai-compatible' && config.baseUrl === undefined) {
    throw new ModelConfigurationError({ message: 'an openai-compatible model needs a baseUrl' });
  }
  if (config.apiKeyEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(config.apiKeyEnv)) {
    throw new ModelConfigurationError({ message: 'apiKeyEnv must be an environment variable name' });
  }
  return config;
}

function defaultBaseUrl(provider: ModelProvider, env: ModelEnvironment): string {
  switch (provider) {
    case 'openai':
      return nonEmpty(env.OPENAI_BASE_URL) ?? 'https://api.openai.com/v1';
    case 'anthropic':
      return nonEmpty(env.ANTHROPIC_BASE_URL) ?? 'https://api.anthropic.com/v1';
    case 'ollama':
      return ollamaBaseUrl(nonEmpty(env.OLLAMA_HOST));
    case 'openai-compatible':
      throw new ModelConfigurationError({ message: 'an openai-compatible model needs a base URL' });
    default:
      return localBaseUrls[provider] ?? DEFAULT_OLLAMA_BASE_URL;
  }
}

/**
 * `OLLAMA_HOST` as Ollama itself reads it: `host`, `host:port` or a URL; without a scheme the port defaults to
 * 11434. The OpenAI-compatible API lives under `/v1`.
 */
function ollamaBaseUrl(host: string | undefined): string {
  if (host === undefined) return DEFAULT_OLLAMA_BASE_URL;
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(host);
  let url: URL;
  try {
    url = new URL(hasScheme ? host : `http://${host}`);
  } catch (cause) {
    throw new ModelConfigurationError({
      message: 'OLLAMA_HOST is not a host or URL',
      variable: 'OLLAMA_HOST',
      cause,
    });
  }
  if (!hasScheme && url.port === '') url.port = '11434';
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path}${path.endsWith('/v1') ? '' : '/v1'}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
