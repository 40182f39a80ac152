/** The part of `AsyncLocalStorage` a scope uses (typed here: the module is loaded lazily). */
interface CallContext<H> {
  run<R>(value: H, operation: () => R): R;
  getStore(): H | undefined;
}

/**
 * Which tool call a server's message belongs to, for the routers of one connection (questions, log messages):
 * the call's async context carries what answers it (a Streamable HTTP request, its SSE answer stream and a
 * 2026-07-28 retry all run in it). A message arriving outside any call's context (stdio reads on the connection's
 * own stream) belongs to the only call in flight; with several in flight nobody can tell whose it is.
 */
export class CallScope<H> {
  readonly #context: CallContext<H>;
  readonly #inFlight = new Set<H>();

  private constructor(context: CallContext<H>) {
    this.#context = context;
  }

  /** A scope for one connection (async: `node:async_hooks` is loaded when a connection opens, not on import). */
  static async create<H>(): Promise<CallScope<H>> {
    const { AsyncLocalStorage } = await import('node:async_hooks');
    return new CallScope<H>(new AsyncLocalStorage<H>());
  }

  /** Runs one call with `value` as what answers its messages (none: the call takes no messages). */
  async during<T>(value: H | undefined, operation: () => Promise<T>): Promise<T> {
    if (value === undefined) return operation();
    this.#inFlight.add(value);
    try {
      return await this.#context.run(value, operation);
    } finally {
      this.#inFlight.delete(value);
    }
  }

  /** What answers a message arriving now: its own call's, else the only call's in flight, else nothing. */
  current(): H | undefined {
    const own = this.#context.getStore();
    if (own !== undefined) return own;
    if (this.#inFlight.size !== 1) return undefined;
    return this.#inFlight.values().next().value;
  }
}
