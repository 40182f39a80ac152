import {
  convertOpenAICompatibleChatUsage,
  getResponseMetadata,
  mapOpenAICompatibleFinishReason,
} from '@ai-sdk/openai-compatible/internal';
import type {
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
  SharedV4ProviderMetadata,
} from '@ai-sdk/provider';
import { InvalidResponseDataError } from '@ai-sdk/provider';
import { generateId, type StreamingToolCallDelta, StreamingToolCallTracker } from '@ai-sdk/provider-utils';

/** A chunk as the provider's chunk schema returns it (the fields this file reads). */
interface Chunk {
  readonly id?: string | null;
  readonly created?: number | null;
  readonly model?: string | null;
  readonly choices: readonly {
    readonly delta?: Delta | null;
    readonly finish_reason?: string | null;
  }[];
  readonly usage?: Usage | null;
}

interface Delta {
  readonly content?: string | readonly { type: string; text?: unknown; thinking?: unknown }[] | null;
  readonly refusal?: string;
  readonly reasoning_content?: string | null;
  readonly reasoning?: string | null;
  readonly tool_calls?: readonly ToolCallDelta[] | null;
}

type Usage = Parameters<typeof convertOpenAICompatibleChatUsage>[0] & {
  completion_tokens_details?: {
    accepted_prediction_tokens?: number | null;
    rejected_prediction_tokens?: number | null;
  } | null;
};

type ToolCallDelta = StreamingToolCallDelta & {
  extra_content?: { google?: { thought_signature?: string | null } | null } | null | undefined;
};

interface PendingToolCall {
  id: string | null;
  bufferedArguments: string;
  extraContent: ToolCallDelta['extra_content'];
}

/** A validated chunk, or why the provider would not take it (its `error` part). */
export type ChunkResult =
  | { readonly success: true; readonly value: unknown }
  | { readonly success: false; readonly error: unknown };

/**
 * What `@ai-sdk/openai-compatible`'s chat model (3.0.x) makes of each validated stream chunk: the same
 * `LanguageModelV4` stream parts in the same order, written as a plain class so the direct SSE reader
 * ({@link import('./direct-sse-language-model.ts')}) can push a read's chunks through it without a TransformStream.
 * It mirrors the provider's `doStream` transform step by step (reasoning before text, refusals as text, tool-call
 * deltas buffered until their name comes, the finish reason mapped at the end, usage and prediction tokens in the
 * finish part) and reuses the provider's own pieces where they are exported: the tool-call tracker, the usage
 * converter, the finish-reason map, the response metadata. It covers the model `resolveLanguageModel` builds (no
 * metadata extractor, no usage converter); `openai-compatible-direct-stream.test.ts` proves the parts equal the
 * provider's on recorded streams, so an upgrade of the provider that changes them fails there.
 */
export class OpenAICompatibleChunkParts {
  readonly #out: LanguageModelV4StreamPart[] = [];
  readonly #metadataKey: string;
  readonly #tracker: StreamingToolCallTracker<ToolCallDelta>;
  readonly #pending = new Map<number, PendingToolCall>();
  readonly #forwarded = new Set<number>();
  #finishReason: LanguageModelV4FinishReason | undefined;
  #rawFinishReason: string | undefined;
  #usage: Usage | undefined;
  #metadataExtracted = false;
  #activeReasoning = false;
  #activeText = false;
  #hasRefusal = false;

  /** `metadataKey`: the provider options name the provider keys its metadata by (its `finish` part's key). */
  constructor(metadataKey: string) {
    this.#metadataKey = metadataKey;
    const out = this.#out;
    this.#tracker = new StreamingToolCallTracker<ToolCallDelta>(
      { enqueue: (part) => out.push(part as LanguageModelV4StreamPart) },
      {
        generateId,
        extractMetadata: (delta) => {
          const thoughtSignature = delta.extra_content?.google?.thought_signature;
          return thoughtSignature ? { [metadataKey]: { thoughtSignature } } : undefined;
        },
        buildToolCallProviderMetadata: (metadata) => metadata,
      },
    );
  }

  /** Handles one chunk; returns the parts it makes (an array reused by the next call). */
  push(chunk: ChunkResult): LanguageModelV4StreamPart[] {
    const out = this.#out;
    out.length = 0;
    if (!chunk.success) {
      this.#failed();
      out.push({ type: 'error', error: chunk.error });
      return out;
    }
    const raw = chunk.value as Chunk | { error: unknown };
    if ('error' in raw) {
      this.#failed();
      out.push({ type: 'error', error: raw.error });
      return out;
    }
    const value = raw as Chunk;
    if (!this.#metadataExtracted) {
      const metadata = getResponseMetadata(value);
      if (Object.values(metadata).some(Boolean)) {
        this.#metadataExtracted = true;
        out.push({ type: 'response-metadata', ...metadata });
      }
    }
    if (value.usage != null) this.#usage = value.usage;
    const choice = value.choices[0];
    if (choice?.finish_reason != null) this.#rawFinishReason = choice.finish_reason;
    const delta = choice?.delta;
    if (delta == null) return out;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) this.#reasoningDelta(reasoning);
    this.#content(delta.content);
    const refusal = delta.refusal;
    if (refusal != null && refusal.length > 0) {
      this.#hasRefusal = true;
      this.#textDelta(refusal);
    }
    if (delta.tool_calls != null && delta.tool_calls.length > 0) {
      if (this.#activeReasoning) {
        out.push({ type: 'reasoning-end', id: 'reasoning-0' });
        this.#activeReasoning = false;
      }
      for (const toolCall of delta.tool_calls) this.#toolCallDelta(toolCall);
    }
    return out;
  }

  /** The stream ended: open parts end, unfinished calls finish, then the `finish` part (as the provider's flush). */
  end(): LanguageModelV4StreamPart[] {
    const out = this.#out;
    out.length = 0;
    if (this.#activeReasoning) out.push({ type: 'reasoning-end', id: 'reasoning-0' });
    if (this.#activeText) out.push({ type: 'text-end', id: 'txt-0' });
    for (const [index, pending] of this.#pending) {
      this.#tracker.processDelta({
        index,
        id: pending.id,
        function: { arguments: pending.bufferedArguments },
      });
    }
    this.#pending.clear();
    this.#tracker.flush();
    if (this.#rawFinishReason != null) {
      this.#finishReason = {
        unified: mapOpenAICompatibleFinishReason(this.#rawFinishReason, { hasRefusal: this.#hasRefusal }),
        raw: this.#rawFinishReason,
      };
    }
    if (this.#finishReason == null) {
      this.#finishReason = { unified: 'error', raw: undefined };
      out.push({
        type: 'error',
        error: new InvalidResponseDataError({
          data: undefined,
          message: 'Response stream ended without a finish reason.',
        }),
      });
    }
    const details = this.#usage?.completion_tokens_details;
    const own: Record<string, number> = {};
    if (details?.accepted_prediction_tokens != null)
      own.acceptedPredictionTokens = details.accepted_prediction_tokens;
    if (details?.rejected_prediction_tokens != null)
      own.rejectedPredictionTokens = details.rejected_prediction_tokens;
    const providerMetadata: SharedV4ProviderMetadata = { [this.#metadataKey]: own };
    out.push({
      type: 'finish',
      finishReason: this.#finishReason,
      usage: convertOpenAICompatibleChatUsage(this.#usage),
      providerMetadata,
    });
    return out;
  }

  #failed(): void {
    this.#finishReason = { unified: 'error', raw: undefined };
    this.#rawFinishReason = undefined;
  }

  #content(content: Delta['content']): void {
    if (content == null) return;
    if (typeof content === 'string') {
      if (content.length > 0) this.#textDelta(content);
      return;
    }
    for (const part of content) {
      if (part.type === 'text' && typeof part.text === 'string') {
        if (part.text.length > 0) this.#textDelta(part.text);
      } else if (part.type === 'thinking' && Array.isArray(part.thinking)) {
        const text = (part.thinking as unknown[])
          .filter(
            (piece): piece is { text: string } =>
              piece != null &&
              typeof piece === 'object' &&
              (piece as { type?: unknown }).type === 'text' &&
              typeof (piece as { text?: unknown }).text === 'string',
          )
          .map((piece) => piece.text)
          .join('');
        if (text.length > 0) this.#reasoningDelta(text);
      }
    }
  }

  #reasoningDelta(delta: string): void {
    const out = this.#out;
    if (this.#activeText) {
      out.push({ type: 'text-end', id: 'txt-0' });
      this.#activeText = false;
    }
    if (!this.#activeReasoning) {
      out.push({ type: 'reasoning-start', id: 'reasoning-0' });
      this.#activeReasoning = true;
    }
    out.push({ type: 'reasoning-delta', id: 'reasoning-0', delta });
  }

  #textDelta(delta: string): void {
    const out = this.#out;
    if (this.#activeReasoning) {
      out.push({ type: 'reasoning-end', id: 'reasoning-0' });
      this.#activeReasoning = false;
    }
    if (!this.#activeText) {
      out.push({ type: 'text-start', id: 'txt-0' });
      this.#activeText = true;
    }
    out.push({ type: 'text-delta', id: 'txt-0', delta });
  }

  // Some servers send a call's first delta without its name, which the tracker rejects: buffer until it comes.
  #toolCallDelta(delta: ToolCallDelta): void {
    const index = delta.index;
    if (index == null || this.#forwarded.has(index)) {
      this.#tracker.processDelta(delta);
      return;
    }
    let pending = this.#pending.get(index);
    if (pending === undefined) {
      pending = { id: delta.id ?? null, bufferedArguments: '', extraContent: delta.extra_content ?? null };
      this.#pending.set(index, pending);
    } else {
      if (pending.id == null && delta.id != null) pending.id = delta.id;
      if (pending.extraContent == null && delta.extra_content != null)
        pending.extraContent = delta.extra_content;
    }
    const argumentsDelta = delta.function?.arguments;
    if (argumentsDelta != null) pending.bufferedArguments += argumentsDelta;
    const name = delta.function?.name;
    if (name != null) {
      this.#tracker.processDelta({
        index,
        id: pending.id,
        function: { name, arguments: pending.bufferedArguments },
        extra_content: pending.extraContent ?? undefined,
      });
      this.#pending.delete(index);
      this.#forwarded.add(index);
    }
  }
}
