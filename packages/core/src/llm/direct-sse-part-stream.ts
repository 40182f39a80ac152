import type { LanguageModelV4StreamPart, SharedV4Warning } from '@ai-sdk/provider';
import { APICallError, JSONParseError, TypeValidationError } from '@ai-sdk/provider';
import { isAbortError, secureJsonParse } from '@ai-sdk/provider-utils';
import { omitUndefined } from '@toolbus/spec';
import type { NodeHttpBody } from '../net/node-http-body.ts';
import { type SseEvent, SseEventReader } from '../net/sse-event-reader.ts';
import { type PartOutlet, type PartPump, partTakers, tapParts } from './direct-part-tap.ts';
import type { ChunkResult, OpenAICompatibleChunkParts } from './openai-compatible-chunk-parts.ts';
import type { ChunkValidator } from './synchronous-chunk-validation.ts';

/** What an error made while reading the body carries, as the provider's own reader sets it. */
export interface BodyContext {
  readonly url: string;
  readonly requestBodyValues: unknown;
  readonly statusCode: number;
  readonly responseHeaders: Record<string, string> | undefined;
}

/** What a direct part stream reads and how it turns chunks into parts. */
export interface DirectPartStreamOptions {
  /** The body: as node:http delivers it when it can be taken so, else the response's web stream. */
  readonly body: NodeHttpBody | ReadableStream<Uint8Array>;
  readonly validate: ChunkValidator;
  readonly parts: OpenAICompatibleChunkParts;
  readonly warnings: SharedV4Warning[];
  readonly context: BodyContext;
}

/** The streams read directly, by how their body is read (what {@link directSseBodyOf} answers). */
const directStreams = new WeakMap<ReadableStream<LanguageModelV4StreamPart>, DirectSseBody>();

/** How a direct stream reads its body: as node:http delivers it, or through the response's web stream. */
export type DirectSseBody = 'node:http' | 'web stream';

/** How `stream` reads the model's body, or undefined when it is not one the direct reader makes. */
export function directSseBodyOf(
  stream: ReadableStream<LanguageModelV4StreamPart>,
): DirectSseBody | undefined {
  return directStreams.get(stream);
}

/**
 * The model's parts from its SSE body: `stream-start` with the provider's warnings, then what each event's chunk
 * makes, then the end's parts; a body that breaks off fails the stream as the provider's does.
 */
export function directPartStream(
  options: DirectPartStreamOptions,
): ReadableStream<LanguageModelV4StreamPart> {
  if (options.body instanceof ReadableStream) {
    const stream = pulledPartStream(options, options.body);
    directStreams.set(stream, 'web stream');
    return stream;
  }
  const stream = pushedPartStream(options, options.body);
  directStreams.set(stream, 'node:http');
  return stream;
}

/** A web-stream body: one read per pull, as many pulls as it takes to make a part. */
function pulledPartStream(
  options: DirectPartStreamOptions,
  body: ReadableStream<Uint8Array>,
): ReadableStream<LanguageModelV4StreamPart> {
  const { validate, parts, context } = options;
  const reader = body.getReader();
  const events = new SseEventReader();
  return new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      controller.enqueue({ type: 'stream-start', warnings: options.warnings });
    },
    async pull(controller) {
      for (;;) {
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await reader.read();
        } catch (error) {
          throw bodyReadError(error, context);
        }
        if (next.done) {
          for (const part of parts.end()) controller.enqueue(part);
          controller.close();
          return;
        }
        const bytes = next.value;
        let made = false;
        for (const event of events.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) {
          // OpenAI's end marker, which the provider skips too.
          if (event.data === '[DONE]') continue;
          const parsed = parseChunk(event.data, validate);
          const chunk = parsed instanceof Promise ? await parsed : (parsed as ChunkResult);
          for (const part of parts.push(chunk)) {
            controller.enqueue(part);
            made = true;
          }
        }
        if (made) return;
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/**
 * Reads a node:http body, each socket read handled as it comes (no web stream on the way in), its parts handed to
 * `outlet`. A chunk whose check is asynchronous (a schema zod cannot check synchronously) pauses the socket until
 * it is done, so parts keep their order; so does a reader that is behind.
 */
function pumpParts(options: DirectPartStreamOptions, body: NodeHttpBody, outlet: PartOutlet): PartPump {
  const { validate, parts, context } = options;
  const events = new SseEventReader();
  let waiting = false;
  let finished = false;
  let behind = false;
  const failWith = (error: unknown): void => {
    if (finished) return;
    finished = true;
    body.destroy();
    outlet.error(error);
  };
  const emit = (chunk: ChunkResult): void => {
    for (const part of parts.push(chunk)) if (outlet.part(part)) behind = true;
  };
  // Handles `list` from `from` on; returns early (socket paused) at a chunk checked asynchronously.
  const handle = (list: SseEvent[], from: number): void => {
    for (let index = from; index < list.length; index += 1) {
      const data = (list[index] as SseEvent).data;
      if (data === '[DONE]') continue;
      const parsed = parseChunk(data, validate);
      if (parsed instanceof Promise) {
        waiting = true;
        body.pause();
        parsed.then((chunk) => {
          waiting = false;
          if (finished) return;
          try {
            emit(chunk);
            handle(list, index + 1);
          } catch (error) {
            failWith(error);
            return;
          }
          if (!waiting && !behind) body.resume();
        });
        return;
      }
      emit(parsed);
    }
  };
  body.start({
    data(chunk) {
      if (finished) return;
      try {
        handle(events.read(chunk), 0);
      } catch (error) {
        failWith(error);
        return;
      }
      if (behind) body.pause();
    },
    end() {
      if (finished) return;
      try {
        for (const part of parts.end()) outlet.part(part);
      } catch (error) {
        failWith(error);
        return;
      }
      finished = true;
      outlet.end();
    },
    error(error) {
      failWith(bodyReadError(error, context));
    },
  });
  return {
    caughtUp() {
      if (!behind) return;
      behind = false;
      if (!waiting && !finished) body.resume();
    },
    stop() {
      finished = true;
      body.destroy();
    },
  };
}

/**
 * A node:http body's parts as a web stream (for a reader that reads `doStream`'s stream), or handed to the reader
 * that takes them ({@link takeDirectParts}) before the stream is first read. The body starts at the first pull or
 * the take, whichever comes first: parts already in a stream's queue could not be handed to a taker.
 */
function pushedPartStream(
  options: DirectPartStreamOptions,
  body: NodeHttpBody,
): ReadableStream<LanguageModelV4StreamPart> {
  let pump: PartPump | undefined;
  let taken = false;
  // A failure waits until the reader has taken the parts made before it (erroring a stream drops its queue;
  // the provider's chain, pulled a chunk at a time, has delivered them by then).
  let failure: { error: unknown } | undefined;
  const queueSize = 64;
  const stream = new ReadableStream<LanguageModelV4StreamPart>(
    {
      start(controller) {
        controller.enqueue({ type: 'stream-start', warnings: options.warnings });
      },
      pull(controller) {
        if (taken) return;
        if (pump === undefined) {
          // The first pull comes right after the stream is made: the body starts a loop turn later unless a
          // reader took the parts meanwhile (the turn's loop takes them as soon as doStream answers).
          return new Promise<void>((resolve) =>
            setImmediate(() => {
              resolve();
              if (taken || pump !== undefined) return;
              pump = pumpParts(options, body, {
                part(part) {
                  controller.enqueue(part);
                  return (controller.desiredSize ?? 1) <= 0;
                },
                end: () => controller.close(),
                error(error) {
                  if (controller.desiredSize === queueSize) controller.error(error);
                  else failure = { error };
                },
              });
            }),
          );
        }
        if (failure !== undefined) {
          if (controller.desiredSize === queueSize) controller.error(failure.error);
          return;
        }
        pump.caughtUp();
      },
      cancel() {
        if (pump === undefined) body.destroy();
        else pump.stop();
      },
    },
    // Room for a burst of parts before the socket is paused: pausing and resuming per token costs more.
    new CountQueuingStrategy({ highWaterMark: queueSize }),
  );
  partTakers.set(stream, (sink) => {
    if (pump !== undefined || taken) return undefined;
    taken = true;
    return tapParts(sink, options.warnings, (outlet) => pumpParts(options, body, outlet));
  });
  return stream;
}

/** One event's JSON, parsed and checked as the provider's `safeParseJSON` does (same errors, same values). */
function parseChunk(text: string, validate: ChunkValidator): ChunkResult | Promise<ChunkResult> {
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    return {
      success: false,
      error: JSONParseError.isInstance(error) ? error : new JSONParseError({ text, cause: error }),
    };
  }
  let result: ReturnType<ChunkValidator>;
  try {
    result = validate(value);
  } catch (error) {
    return invalidChunk(value, error);
  }
  if (result instanceof Promise) {
    return result.then(
      (settled) => (settled.success ? settled : invalidChunk(value, settled.error)),
      (error: unknown) => invalidChunk(value, error),
    );
  }
  // A valid chunk's result is passed on as it is (no closures or copies per chunk: this runs for every token).
  return result.success ? result : invalidChunk(value, result.error);
}

function invalidChunk(value: unknown, cause: unknown): ChunkResult {
  return { success: false, error: TypeValidationError.wrap({ value, cause }) };
}

/**
 * `secureJsonParse`'s answer for `text`, without its two regular expressions over every event when they cannot
 * match: each looks for a key spelt `__proto__` or `constructor`, written plainly or with `\\u` escapes, so a text
 * with neither word and no backslash has no such key and `JSON.parse`'s value is what `secureJsonParse` returns.
 * Anything else (an escape, either word, a syntax error) is left to `secureJsonParse`, for its value or its error.
 */
function parseJson(text: string): unknown {
  if (text.includes('\\') || text.includes('__proto__') || text.includes('constructor')) {
    return secureJsonParse(text);
  }
  try {
    return JSON.parse(text);
  } catch {
    return secureJsonParse(text);
  }
}

/**
 * A body that broke off, as the provider's body reader reports it: an abort as it is, anything else as an
 * `APICallError` ("Failed to process successful response"), marked retryable when a network error code is in its
 * causes (the provider's `handleFetchError`, which its package does not export).
 */
function bodyReadError(error: unknown, context: BodyContext): unknown {
  if (isAbortError(error)) return error;
  const fields = {
    url: context.url,
    requestBodyValues: context.requestBodyValues,
    statusCode: context.statusCode,
    cause: error,
    ...omitUndefined({ responseHeaders: context.responseHeaders }),
  };
  const wrapped = new APICallError({ message: 'Failed to process successful response', ...fields });
  if (!hasNetworkErrorCode(wrapped)) return wrapped;
  return new APICallError({ message: wrapped.message, ...fields, isRetryable: true });
}

const networkErrorCodes = new Set([
  'ConnectionRefused',
  'ConnectionClosed',
  'FailedToOpenSocket',
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function hasNetworkErrorCode(error: unknown): boolean {
  const seen = new Set<Error>();
  let current = error;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && networkErrorCodes.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
