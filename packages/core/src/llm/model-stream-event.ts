import type { ToolbusError } from '@toolbus/spec';

/** Why the model stopped: the AI SDK's unified reasons. `interrupted`: the stream ended without a finish signal. */
export type ModelFinishReason =
  | 'stop'
  | 'length'
  | 'content-filter'
  | 'tool-calls'
  | 'error'
  | 'interrupted'
  | 'other';

/** Token counts of one model step, where the provider reports them. */
export interface ModelUsage {
  readonly inputTokens: number | undefined;
  readonly outputTokens: number | undefined;
  readonly reasoningTokens: number | undefined;
  readonly cachedInputTokens: number | undefined;
}

/**
 * One event of a model step, normalised across providers. A stream ends with exactly one `finish` or one
 * `error`. Tool calls are numbered by `index` in the order they started (0, 1, …); `tool-call-end` comes as soon
 * as that call's arguments are complete, possibly while other calls or text are still streaming.
 */
export type ModelStreamEvent =
  | { readonly type: 'text-delta'; readonly text: string }
  | { readonly type: 'reasoning-delta'; readonly text: string }
  | { readonly type: 'tool-call-start'; readonly index: number; readonly id: string; readonly name: string }
  | {
      readonly type: 'tool-call-delta';
      readonly index: number;
      readonly id: string;
      readonly argumentsDelta: string;
    }
  | {
      readonly type: 'tool-call-end';
      readonly index: number;
      readonly id: string;
      readonly name: string;
      /** The argument text exactly as the model wrote it (parse with the tolerant parser, never `JSON.parse`). */
      readonly rawArguments: string;
    }
  | {
      readonly type: 'finish';
      readonly finishReason: ModelFinishReason;
      /** The provider's own reason string (`tool_calls`, `end_turn`, …). */
      readonly rawFinishReason: string | undefined;
      readonly usage: ModelUsage;
    }
  | { readonly type: 'error'; readonly error: ToolbusError };
