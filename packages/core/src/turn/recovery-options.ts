import type { ToolCallTextParser } from '../recovery/extracted-tool-call.ts';
import { findModelProfile, type ModelProfile } from '../recovery/model-profiles.ts';

/** How text-written tool calls are recovered. */
export interface RecoveryOptions {
  /** Recovery attempts per turn (one by default). Default 1. */
  readonly maxAttempts?: number;
  /**
   * When recovery finds nothing, tell the model what went wrong and let it try again (`true`: a message naming
   * the tool the failed call meant, when the text names one; a string: that message). The history then holds
   * the step's text without the unreadable markup, never the raw markup. Default off.
   */
  readonly correctiveMessage?: string | boolean;
  /** The dialect parsers, in priority order (default: all of them). */
  readonly parsers?: readonly ToolCallTextParser[];
  /**
   * The dialects (parser names) tried first, overriding the model profile; `[]` turns profiles off (every
   * dialect at once, the auto-detection used for unknown models).
   */
  readonly dialects?: readonly string[];
  /** The model-family table the model id is matched against (default `defaultModelProfiles`). */
  readonly profiles?: readonly ModelProfile[];
}

/** The dialects recovery tries first: the configured ones, else the model family's (none for unknown models). */
export function preferredDialectsOf(options: {
  readonly model: { readonly modelId: string };
  readonly recovery?: RecoveryOptions;
}): readonly string[] | undefined {
  const configured = options.recovery?.dialects;
  if (configured !== undefined) return configured.length > 0 ? configured : undefined;
  return findModelProfile(options.model.modelId, options.recovery?.profiles)?.dialects;
}
