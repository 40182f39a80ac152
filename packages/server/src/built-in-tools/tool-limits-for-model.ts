import { type ModelEnvironment, resolveModelEndpoint, type ToolSearchLimits } from '@toolbus/core';
import type { BuiltInToolSettings } from './built-in-tool-settings.ts';

/**
 * The tool limits for one model string: `toolLimits["*"]`, then the resolved `provider:model` entry, then the model
 * string's own entry (the most specific wins). `toolbus chat` and every `toolbus serve` turn read them here.
 */
export function toolLimitsForModel(
  limits: BuiltInToolSettings['toolLimits'],
  model: string | undefined,
  env: ModelEnvironment,
): ToolSearchLimits {
  const table = limits ?? {};
  let resolved: string | undefined;
  try {
    const endpoint = resolveModelEndpoint(model, env);
    resolved = `${endpoint.provider}:${endpoint.model}`;
  } catch {
    resolved = undefined;
  }
  return {
    ...table['*'],
    ...(resolved === undefined ? {} : table[resolved]),
    ...(model === undefined ? {} : table[model]),
  };
}
