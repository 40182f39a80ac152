import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import type { ChatMessage, ToolbusError, ToolDefinition } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { ModelStallPhase } from './model-errors.ts';
import { ModelAbortedError, ModelStallError } from './model-errors.ts';
import type { ModelStreamEvent } from './model-stream-event.ts';
import { ModelStreamNormalizer } from './model-stream-normalizer.ts';
import { pulled } from './pulled.ts';
import { readStepParts, type StepPartReading } from './read-step-parts.ts';
import { StallWatchdog } from './stall-watchdog.ts';
import { toLanguageModelPrompt } from './to-language-model-prompt.ts';
import type { ModelToolChoice } from './to-language-model-tools.ts';
import { toLanguageModelToolChoice, toLanguageModelTools } from './to-language-model-tools.ts';
import { toModelError } from './to-model-error.ts';

/** Options for {@link streamModelStep}. */
export interface StreamModelStepOptions {
  readonly model: LanguageModelV4;
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly ToolDefinition[];
  /** Default `auto` (ignored when no tools are given). */
  readonly toolChoice?: ModelToolChoice;
  /** Stops the request and the stream promptly; the stream then ends with a `model_aborted` error event. */
  readonly signal?: AbortSignal;
  /** Longest wait for the first output chunk (text, reasoning, tool call, finish), request included. Default 60 000 ms. */
  readonly firstChunkTimeoutMs?: number;
  /** Longest silence between two chunks. Default 120 000 ms. */
  readonly chunkTimeoutMs?: number;
  /** Extra attempts when the step fails before anything was emitted (never after). Default 2. */
  readonly maxRetriesBeforeFirstChunk?: number;
  /** First backoff delay; doubled for each further retry. Default 500 ms. */
  readonly retryDelayMs?: number;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  /** Passed to the provider package as is (e.g. `{ anthropic: { thinking: … } }`). */
  readonly providerOptions?: SharedV4ProviderOptions;
  /** Send assistant reasoning from history back to the provider. Default true. */
  readonly includeReasoningInPrompt?: boolean;
}

type AttemptOutcome =
  | { readonly kind: 'done' }
  | {
      readonly kind: 'failed';
      readonly error: ToolbusError;
      readonly retryable: boolean;
      readonly emitted: boolean;
    };

/**
 * Streams one model step through the provider's `doStream` (toolbus owns the loop, not `streamText`), as
 * normalised {@link ModelStreamEvent}s: text and reasoning deltas, native tool calls assembled per call and ended
 * as soon as complete, then exactly one `finish` or `error`. Failures arrive as typed `error` events, never as a
 * throw: `ModelStallError`, `ModelRequestError`, `ModelUnavailableError`, `ModelStreamError`, `ModelAbortedError`.
 * A failure before the first event is retried with exponential backoff (stalls, connection failures, 408/409/429
 * and 5xx; not 4xx); after the first event nothing is retried, because the consumer has already seen output.
 */
export function streamModelStep(options: StreamModelStepOptions): AsyncGenerator<ModelStreamEvent, void> {
  return pulled((push) => streamModelStepTo(options, push));
}

/**
 * {@link streamModelStep}, each event handed to `onEvent` as it comes: the turn's own loop reads a step this way,
 * without an async generator's promises per token. An `onEvent` that returns a promise is waited for before the
 * next event; one that throws stops the step (its connection is released) and the throw goes on to the caller.
 */
export async function streamModelStepTo(
  options: StreamModelStepOptions,
  onEvent: (event: ModelStreamEvent) => void | Promise<void>,
): Promise<void> {
  const signal = options.signal;
  const maxRetries = Math.max(0, options.maxRetriesBeforeFirstChunk ?? 2);
  const retryDelayMs = options.retryDelayMs ?? 500;
  const callOptions = buildCallOptions(options);
  for (let attempt = 0; ; attempt += 1) {
    if (signal?.aborted === true) {
      await onEvent({ type: 'error', error: new ModelAbortedError({ cause: signal.reason }) });
      return;
    }
    const outcome: { value: AttemptOutcome } = { value: { kind: 'done' } };
    await runAttempt({ options, callOptions, outcome, onEvent });
    const result = outcome.value;
    if (result.kind === 'done') return;
    if (result.emitted || !result.retryable || attempt >= maxRetries) {
      await onEvent({ type: 'error', error: result.error });
      return;
    }
    const aborted = await delay(retryDelayMs * 2 ** attempt, signal);
    if (aborted) {
      await onEvent({ type: 'error', error: new ModelAbortedError({ cause: signal?.reason }) });
      return;
    }
  }
}

function buildCallOptions(options: StreamModelStepOptions): Omit<LanguageModelV4CallOptions, 'abortSignal'> {
  const tools = options.tools ?? [];
  return {
    prompt: toLanguageModelPrompt(options.messages, {
      includeReasoning: options.includeReasoningInPrompt ?? true,
    }),
    ...(tools.length > 0
      ? {
          tools: toLanguageModelTools(tools),
          toolChoice: toLanguageModelToolChoice(options.toolChoice ?? 'auto'),
        }
      : {}),
    ...omitUndefined({
      maxOutputTokens: options.maxOutputTokens,
      temperature: options.temperature,
      providerOptions: options.providerOptions,
    }),
  };
}

/**
 * One request. Hands events to `onEvent` as they come; on failure it stores the error in `outcome` instead, so the
 * caller can decide between a retry and an error event.
 */
async function runAttempt(context: {
  options: StreamModelStepOptions;
  callOptions: Omit<LanguageModelV4CallOptions, 'abortSignal'>;
  outcome: { value: AttemptOutcome };
  onEvent: (event: ModelStreamEvent) => void | Promise<void>;
}): Promise<void> {
  const { options, callOptions, outcome, onEvent } = context;
  const callerSignal = options.signal;
  const controller = new AbortController();
  let stall: ModelStallError | undefined;
  let reading: StepPartReading | undefined;
  let emitted = false;
  let completed = false;
  // Interrupting cancels the reading: it settles at once, whatever the provider's pipe does.
  const interrupt = (reason: unknown): void => {
    if (!controller.signal.aborted) controller.abort(reason);
    reading?.cancel(reason);
  };
  const onCallerAbort = (): void => interrupt(callerSignal?.reason);
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  const watchdog = new StallWatchdog({
    firstChunkMs: options.firstChunkTimeoutMs ?? 60_000,
    chunkMs: options.chunkTimeoutMs ?? 120_000,
    onStall: (phase: ModelStallPhase, timeoutMs: number) => {
      stall = new ModelStallError({ phase, timeoutMs });
      interrupt(stall);
    },
  });
  const fail = (error: unknown): void => {
    if (callerSignal?.aborted === true) {
      outcome.value = {
        kind: 'failed',
        error: new ModelAbortedError({ cause: callerSignal.reason }),
        retryable: false,
        emitted,
      };
    } else if (stall !== undefined) {
      outcome.value = { kind: 'failed', error: stall, retryable: true, emitted };
    } else {
      const mapped = toModelError({ error, model: options.model });
      outcome.value = { kind: 'failed', error: mapped.error, retryable: mapped.retryable, emitted };
    }
  };
  try {
    watchdog.start();
    let stream: ReadableStream<LanguageModelV4StreamPart>;
    try {
      const interrupted = new Promise<undefined>((resolve) => {
        if (controller.signal.aborted) resolve(undefined);
        controller.signal.addEventListener('abort', () => resolve(undefined), { once: true });
      });
      const request = Promise.resolve(
        options.model.doStream({ ...callOptions, abortSignal: controller.signal }),
      );
      const started = await Promise.race([request, interrupted]);
      if (started === undefined) {
        // The request lost the race; if it still produces a stream, nobody will read it.
        request.then((late) => late.stream.cancel().catch(() => undefined)).catch(() => undefined);
        fail(controller.signal.reason);
        return;
      }
      stream = started.stream;
    } catch (error) {
      fail(error);
      return;
    }
    if (controller.signal.aborted) {
      stream.cancel(controller.signal.reason).catch(() => undefined);
      fail(controller.signal.reason);
      return;
    }
    const normalizer = new ModelStreamNormalizer();
    const events: ModelStreamEvent[] = [];
    let sawOutput = false;
    // Hands `list` from `from` on to the consumer; a promise when one of its answers must be waited for.
    const deliver = (list: readonly ModelStreamEvent[], from: number): Promise<void> | undefined => {
      for (let index = from; index < list.length; index += 1) {
        emitted = true;
        // Most handlers answer at once: a promise only when one must be waited for.
        const handled = onEvent(list[index] as ModelStreamEvent);
        if (handled !== undefined) {
          const rest = list.slice(index + 1);
          return handled.then(() => deliver(rest, 0));
        }
      }
      return undefined;
    };
    reading = readStepParts(stream, (part) => {
      // The first chunk is the first output: metadata and empty role chunks do not end the first-chunk wait, so
      // the timeout means the same for every provider (OpenAI's package reads those inside doStream already).
      if (sawOutput || isOutputPart(part)) {
        sawOutput = true;
        watchdog.activity();
      }
      events.length = 0;
      normalizer.push(part, events);
      // Whatever came with an error is dropped: an error ends the step.
      if (normalizer.errorPart !== undefined) return 'stop';
      return deliver(events, 0);
    });
    const read = await reading.done;
    if (read.kind === 'threw') throw read.error;
    if (read.kind === 'failed') {
      fail(read.error);
      return;
    }
    if (controller.signal.aborted) {
      fail(controller.signal.reason);
      return;
    }
    if (read.kind === 'stopped' && normalizer.errorPart !== undefined) {
      fail(normalizer.errorPart.error);
      return;
    }
    watchdog.stop();
    events.length = 0;
    normalizer.close(events);
    for (const event of events) await onEvent(event);
    const finish = normalizer.finish;
    await onEvent({
      type: 'finish',
      finishReason: finish?.finishReason ?? 'interrupted',
      rawFinishReason: finish?.rawFinishReason,
      usage: finish?.usage ?? {
        inputTokens: undefined,
        outputTokens: undefined,
        reasoningTokens: undefined,
        cachedInputTokens: undefined,
      },
    });
    outcome.value = { kind: 'done' };
    completed = true;
  } finally {
    // Runs on success, failure, and when the consumer stops early (its handler threw): the connection is released.
    watchdog.stop();
    callerSignal?.removeEventListener('abort', onCallerAbort);
    if (!completed) interrupt(new ModelAbortedError());
  }
}

function isOutputPart(part: LanguageModelV4StreamPart): boolean {
  switch (part.type) {
    case 'text-delta':
    case 'reasoning-delta':
      return part.delta !== '';
    case 'tool-input-start':
    case 'tool-input-delta':
    case 'tool-call':
    case 'finish':
    case 'error':
      return true;
    default:
      return false;
  }
}

/** Waits `ms`, or less when `signal` aborts; resolves true when aborted. */
function delay(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve(true);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(false);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
