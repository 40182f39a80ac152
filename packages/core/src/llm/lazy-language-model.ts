import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';

/** What {@link LazyLanguageModel} needs: the names the real model will report, and how to make it. */
export interface LazyLanguageModelOptions {
  /** The real model's `provider` (`openai.chat`, `anthropic.messages`, `ollama.chat`, …). */
  readonly provider: string;
  readonly modelId: string;
  /** Loads the provider package and makes the real model; called once, on the first call that needs it. */
  readonly load: () => Promise<LanguageModelV4>;
}

/**
 * A language model whose provider package loads on its first call: a server that names a model at start but
 * answers no chat yet holds none of the provider packages (each is a few megabytes of code and schemas). It is
 * the provider's model itself for every caller: `provider` and `modelId` are known without loading, and
 * `doStream` / `doGenerate` go to the real model once it is made (a failed load is retried on the next call).
 */
export class LazyLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4' as const;
  readonly provider: string;
  readonly modelId: string;
  #model: LanguageModelV4 | undefined;
  #loading: Promise<LanguageModelV4> | undefined;
  readonly #load: () => Promise<LanguageModelV4>;

  constructor(options: LazyLanguageModelOptions) {
    this.provider = options.provider;
    this.modelId = options.modelId;
    this.#load = options.load;
  }

  /** The real model, made once. */
  model(): Promise<LanguageModelV4> {
    if (this.#model !== undefined) return Promise.resolve(this.#model);
    this.#loading ??= this.#load().then(
      (model) => {
        this.#model = model;
        return model;
      },
      (error: unknown) => {
        this.#loading = undefined;
        throw error;
      },
    );
    return this.#loading;
  }

  get supportedUrls(): LanguageModelV4['supportedUrls'] {
    return this.#model?.supportedUrls ?? this.model().then((model) => model.supportedUrls);
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    return (this.#model ?? (await this.model())).doGenerate(options);
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    return (this.#model ?? (await this.model())).doStream(options);
  }
}
