import type { ModelEnvironment, RunChatTurnOptions } from '@toolbus/core';
import type { BuiltInToolSettings } from './built-in-tool-settings.ts';
import { toolLimitsForModel } from './tool-limits-for-model.ts';

/** The deployment settings a chat turn reads besides its tools: the same that `toolbus chat` honours. */
export type TurnToolSettings = Pick<BuiltInToolSettings, 'toolLimits' | 'toolCallDialects'>;

/** What a turn on `model` runs with under `settings`: tool search above its tool limits, the dialects tried first. */
export type TurnToolOptions = Pick<RunChatTurnOptions, 'toolSearch' | 'recovery'>;

/**
 * The turn options of each model string under `settings` (computed once per model: a model string names an
 * endpoint, resolving it parses the string). Limits only when some apply to the model, so a deployment without
 * `toolLimits` streams what it always did (core's defaults, no `tool-mode` packet unless tool search is used).
 */
export function turnToolOptionsFor(
  settings: TurnToolSettings,
  env: ModelEnvironment,
): (model: string) => TurnToolOptions {
  const byModel = new Map<string, TurnToolOptions>();
  return (model) => {
    let options = byModel.get(model);
    if (options === undefined) {
      const limits = toolLimitsForModel(settings.toolLimits, model, env);
      options = {
        ...(Object.keys(limits).length > 0 ? { toolSearch: limits } : {}),
        ...(settings.toolCallDialects ? { recovery: { dialects: settings.toolCallDialects } } : {}),
      };
      byModel.set(model, options);
    }
    return options;
  };
}
