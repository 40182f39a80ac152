import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  SharedV4ProviderOptions,
  SharedV4Warning,
} from '@ai-sdk/provider';
import type { FetchFunction } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { takeNodeHttpBody } from '../net/node-http-body.ts';
import { directPartStream } from './direct-sse-part-stream.ts';
import { OpenAICompatibleChunkParts } from './openai-compatible-chunk-parts.ts';
import type { ChunkValidator } from './synchronous-chunk-validation.ts';

/** A response body the capturing fetch took for the direct reader, and where it came from. */
interface Capture {
  response: Response | undefined;
  url: string;
}

/**
 * Reads an OpenAI-compatible chat model's stream itself, with the provider package still the model layer. The
 * provider builds the request (body, headers, URL), posts it through {@link DirectSseReads.fetch}, turns a failed
 * response into its own error and reports its warnings; a successful response's body is taken by that fetch (the
 * provider gets an empty body in its place) and read here with one reader loop: each read's bytes split into SSE
 * events by {@link SseEventReader}, each event's JSON parsed once and checked with the provider's own chunk schema
 * (synchronously, see `synchronous-chunk-validation.ts`), each chunk turned into the same stream parts the
 * provider makes ({@link OpenAICompatibleChunkParts}). The provider's path costs five web streams per chunk (its
 * body wrapper, a `TextDecoderStream`, an `EventSourceParserStream`, a JSON transform and its part transform, each
 * a promise chain) and parses every event twice over (text, then JSON): at a token per chunk that was about 40 % of
 * a server's CPU. A call asking for raw chunks goes the provider's way.
 */
export class DirectSseReads {
  readonly #fetch: FetchFunction | undefined;
  /** Calls under way, by the abort signal this class hands the provider (one per call, so never shared). */
  readonly #captures = new WeakMap<AbortSignal, Capture>();

  /** `fetch`: what the requests go through (default: the global fetch at call time). */
  constructor(fetch: FetchFunction | undefined) {
    this.#fetch = fetch;
  }

  /** The fetch to give the provider package: requests pass through; a direct call's successful body is kept. */
  readonly fetch: FetchFunction = async (input, init) => {
    const response = await (this.#fetch ?? globalThis.fetch)(input, init);
    const signal = init?.signal;
    const capture = signal === undefined || signal === null ? undefined : this.#captures.get(signal);
    if (capture === undefined || !response.ok || response.body === null) return response;
    capture.response = response;
    capture.url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    // The provider gets a body that never sends a byte: its stream says only what it says before any chunk (its
    // warnings), which `doStream` reads; then the stream is dropped unread. Not an empty body: ending its chain
    // (four transforms flushed and terminated, an error object made per terminate) cost more per step than the
    // rest of the hand-over.
    return new Response(new ReadableStream<Uint8Array>(), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };

  /** `model` (made with {@link fetch}) read directly; `validate` is its chunk schema's synchronous check. */
  wrap(model: LanguageModelV4, validate: ChunkValidator): LanguageModelV4 {
    return new DirectSseLanguageModel({ model, validate, captures: this.#captures });
  }
}

/** The provider's chat model, with `doStream` reading the body directly (see {@link DirectSseReads}). */
export class DirectSseLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4' as const;
  /** The provider package's own model (everything but the stream's reading is its). */
  readonly providerModel: LanguageModelV4;
  readonly #validate: ChunkValidator;
  readonly #captures: WeakMap<AbortSignal, Capture>;

  constructor(options: {
    model: LanguageModelV4;
    validate: ChunkValidator;
    captures: WeakMap<AbortSignal, Capture>;
  }) {
    this.providerModel = options.model;
    this.#validate = options.validate;
    this.#captures = options.captures;
  }

  get provider(): string {
    return this.providerModel.provider;
  }

  get modelId(): string {
    return this.providerModel.modelId;
  }

  get supportedUrls(): LanguageModelV4['supportedUrls'] {
    return this.providerModel.supportedUrls;
  }

  doGenerate(options: LanguageModelV4CallOptions): PromiseLike<LanguageModelV4GenerateResult> {
    return this.providerModel.doGenerate(options);
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    if (options.includeRawChunks === true) return this.providerModel.doStream(options);
    // A signal of this call's own marks its request for the capturing fetch; the caller's abort still reaches it.
    const caller = options.abortSignal;
    const signal = caller === undefined ? new AbortController().signal : AbortSignal.any([caller]);
    const capture: Capture = { response: undefined, url: '' };
    this.#captures.set(signal, capture);
    let result: LanguageModelV4StreamResult;
    try {
      result = await this.providerModel.doStream({ ...options, abortSignal: signal });
    } finally {
      this.#captures.delete(signal);
    }
    const response = capture.response;
    if (response === undefined) return result;
    const stream = directPartStream({
      body: takeNodeHttpBody(response) ?? (response.body as ReadableStream<Uint8Array>),
      validate: this.#validate,
      parts: new OpenAICompatibleChunkParts(
        metadataKeyOf(this.providerModel.provider, options.providerOptions),
      ),
      warnings: await warningsOf(result.stream),
      context: {
        url: capture.url,
        requestBodyValues: result.request?.body,
        statusCode: response.status,
        responseHeaders: result.response?.headers,
      },
    });
    return { stream, ...omitUndefined({ request: result.request, response: result.response }) };
  }
}

/** The call's warnings: the `stream-start` part the provider's stream begins with (before any chunk). */
async function warningsOf(stream: ReadableStream<LanguageModelV4StreamPart>): Promise<SharedV4Warning[]> {
  const reader = stream.getReader();
  const first = await reader.read();
  reader.releaseLock();
  return first.value?.type === 'stream-start' ? first.value.warnings : [];
}

/**
 * The key the provider files its metadata under (its `resolveProviderOptionsKey`, not exported): the provider
 * name before the dot, or its camel-case form when the call's provider options use that.
 */
function metadataKeyOf(provider: string, providerOptions: SharedV4ProviderOptions | undefined): string {
  const rawName = (provider.split('.')[0] ?? provider).trim();
  const camelName = rawName.replace(/[_-]([a-z])/g, (match) => (match[1] as string).toUpperCase());
  return camelName !== rawName && providerOptions?.[camelName] != null ? camelName : rawName;
}
