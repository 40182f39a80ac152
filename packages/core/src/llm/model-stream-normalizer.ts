import type { LanguageModelV4StreamPart, LanguageModelV4Usage } from '@ai-sdk/provider';
import { JsonValueCompletion } from './json-value-completion.ts';
import type { ModelFinishReason, ModelStreamEvent, ModelUsage } from './model-stream-event.ts';

interface ToolCallState {
  readonly index: number;
  readonly id: string;
  readonly name: string;
  rawArguments: string;
  readonly completion: JsonValueCompletion;
  ended: boolean;
}

/** The provider's finish, or `interrupted` when none came. */
export interface NormalizedFinish {
  readonly finishReason: ModelFinishReason;
  readonly rawFinishReason: string | undefined;
  readonly usage: ModelUsage;
}

/**
 * Turns AI SDK stream parts into {@link ModelStreamEvent}s (without the terminal `finish`/`error`, which the
 * step decides). Tool calls are keyed by the provider's id and numbered in start order; a call ends at the first
 * of: its arguments form a complete JSON object or array, the provider's complete `tool-call` part, the end of
 * the stream. Deltas after a call ended are dropped (a call is reported once).
 */
export class ModelStreamNormalizer {
  readonly #calls = new Map<string, ToolCallState>();
  #finish: NormalizedFinish | undefined;
  #errorPart: { error: unknown } | undefined;

  /** The provider's finish part, once seen. */
  get finish(): NormalizedFinish | undefined {
    return this.#finish;
  }

  /** An `error` part the provider sent inside the stream, once seen. */
  get errorPart(): { error: unknown } | undefined {
    return this.#errorPart;
  }

  /** Handles one part, appending the events it produces to `out`. */
  push(part: LanguageModelV4StreamPart, out: ModelStreamEvent[]): void {
    switch (part.type) {
      case 'text-delta':
        if (part.delta !== '') out.push({ type: 'text-delta', text: part.delta });
        return;
      case 'reasoning-delta':
        if (part.delta !== '') out.push({ type: 'reasoning-delta', text: part.delta });
        return;
      case 'tool-input-start':
        if (part.providerExecuted === true) return;
        this.#start(part.id, part.toolName, out);
        return;
      case 'tool-input-delta': {
        const call = this.#calls.get(part.id);
        if (call === undefined || call.ended || part.delta === '') return;
        this.#append(call, part.delta, out);
        return;
      }
      case 'tool-call': {
        if (part.providerExecuted === true) return;
        const call = this.#calls.get(part.toolCallId) ?? this.#start(part.toolCallId, part.toolName, out);
        if (call.ended) return;
        if (call.rawArguments === '' && part.input !== '') {
          // A complete call with no deltas before it: report its arguments as one delta.
          call.rawArguments = part.input;
          out.push({ type: 'tool-call-delta', index: call.index, id: call.id, argumentsDelta: part.input });
        }
        this.#end(call, part.input === '' ? call.rawArguments : part.input, out);
        return;
      }
      case 'finish':
        this.#finish = {
          finishReason: part.finishReason.unified,
          rawFinishReason: part.finishReason.raw,
          usage: toModelUsage(part.usage),
        };
        return;
      case 'error':
        this.#errorPart ??= { error: part.error };
        return;
      default:
        // stream-start, response-metadata, text/reasoning start and end, sources, files, raw: nothing to report.
        return;
    }
  }

  /** The stream ended normally: ends every call still open. */
  close(out: ModelStreamEvent[]): void {
    for (const call of this.#calls.values()) {
      if (!call.ended) this.#end(call, call.rawArguments, out);
    }
  }

  #start(id: string, name: string, out: ModelStreamEvent[]): ToolCallState {
    const call: ToolCallState = {
      index: this.#calls.size,
      id,
      name,
      rawArguments: '',
      completion: new JsonValueCompletion(),
      ended: false,
    };
    this.#calls.set(id, call);
    out.push({ type: 'tool-call-start', index: call.index, id, name });
    return call;
  }

  #append(call: ToolCallState, delta: string, out: ModelStreamEvent[]): void {
    call.rawArguments += delta;
    out.push({ type: 'tool-call-delta', index: call.index, id: call.id, argumentsDelta: delta });
    if (call.completion.push(delta)) this.#end(call, call.rawArguments, out);
  }

  #end(call: ToolCallState, rawArguments: string, out: ModelStreamEvent[]): void {
    call.ended = true;
    out.push({ type: 'tool-call-end', index: call.index, id: call.id, name: call.name, rawArguments });
  }
}

function toModelUsage(usage: LanguageModelV4Usage): ModelUsage {
  return {
    inputTokens: usage.inputTokens.total,
    outputTokens: usage.outputTokens.total,
    reasoningTokens: usage.outputTokens.reasoning,
    cachedInputTokens: usage.inputTokens.cacheRead,
  };
}
