import type { Client } from '@modelcontextprotocol/client';
import {
  checkElicitationContent,
  type ElicitationAnswer,
  type ElicitationQuestion,
  type ElicitationSchema,
  isPlainObject,
} from '@toolbus/spec';

/** Answers one question a server asks during a tool call; resolves `cancel` when nobody can answer. */
export type McpElicitationHandler = (
  question: ElicitationQuestion,
  signal: AbortSignal,
) => Promise<ElicitationAnswer>;

/**
 * What the client declares on both revisions: form mode (with the schema's defaults applied to accepted content,
 * SEP-1034) and URL mode. The same handler answers a 2025-11-25 `elicitation/create` request and a 2026-07-28
 * `input_required` result's embedded request: the SDK fulfils the latter through it and retries the call with the
 * answer and the server's `requestState` (SEP-2322).
 */
export const mcpElicitationCapabilities = {
  elicitation: { form: { applyDefaults: true }, url: {} },
} as const;

/** The part of `AsyncLocalStorage` the router uses (typed here: the module is loaded lazily). */
interface CallContext {
  run<R>(handler: McpElicitationHandler, operation: () => R): R;
  getStore(): McpElicitationHandler | undefined;
}

type ElicitResult =
  | { action: 'accept'; content?: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' }
  | { action: 'cancel' };

/**
 * Routes a server's question to the tool call that is waiting on the server. One connection serves many calls
 * (and, for a server without per-user auth, many users), so the question must reach the right one: the call's
 * async context carries its handler (a Streamable HTTP request, its SSE answer stream and a 2026-07-28 retry all
 * run in it). A question arriving outside any call's context (stdio reads on the connection's own stream) goes to
 * the only call in flight; with several in flight nobody can tell whose it is, and it is cancelled.
 */
export class McpElicitationRouter {
  readonly #context: CallContext;
  readonly #inFlight = new Set<McpElicitationHandler>();

  private constructor(context: CallContext) {
    this.#context = context;
  }

  /** A router for one connection (async: `node:async_hooks` is loaded when a connection opens, not on import). */
  static async create(): Promise<McpElicitationRouter> {
    const { AsyncLocalStorage } = await import('node:async_hooks');
    return new McpElicitationRouter(new AsyncLocalStorage<McpElicitationHandler>());
  }

  /** Runs one call with `handler` answering its questions (none: its questions are cancelled). */
  async during<T>(handler: McpElicitationHandler | undefined, operation: () => Promise<T>): Promise<T> {
    if (handler === undefined) return operation();
    this.#inFlight.add(handler);
    try {
      return await this.#context.run(handler, operation);
    } finally {
      this.#inFlight.delete(handler);
    }
  }

  /** Installs the `elicitation/create` handler on a client built with {@link mcpElicitationCapabilities}. */
  register(client: Client, serverName: string): void {
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const question = toQuestion(request.params as unknown, serverName);
      const handler = this.#handler();
      if (question === undefined || handler === undefined) return { action: 'cancel' };
      const answer = await handler(question, ctx.mcpReq.signal);
      return toResult(question, answer) as never;
    });
  }

  #handler(): McpElicitationHandler | undefined {
    const own = this.#context.getStore();
    if (own !== undefined) return own;
    if (this.#inFlight.size !== 1) return undefined;
    return this.#inFlight.values().next().value;
  }
}

/** The server's request as toolbus asks it; undefined for one nobody should be shown (a non-web URL). */
function toQuestion(params: unknown, serverName: string): ElicitationQuestion | undefined {
  if (!isPlainObject(params)) return undefined;
  const message = typeof params.message === 'string' ? params.message : '';
  if (params.mode === 'url') {
    const url = typeof params.url === 'string' && URL.canParse(params.url) ? new URL(params.url) : undefined;
    // Only a web page is offered to open: a javascript:, file: or custom-scheme URL is never shown as a link.
    if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) return undefined;
    return { mode: 'url', message, url: url.href, serverName };
  }
  const schema = params.requestedSchema;
  if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return undefined;
  return { mode: 'form', message, requestedSchema: schema as unknown as ElicitationSchema, serverName };
}

/** The answer as the server gets it: accepted content is checked against its schema, never sent unchecked. */
function toResult(question: ElicitationQuestion, answer: ElicitationAnswer): ElicitResult {
  if (answer.action === 'decline') return { action: 'decline' };
  if (answer.action !== 'accept') return { action: 'cancel' };
  if (question.mode === 'url') return { action: 'accept' };
  const checked = checkElicitationContent(question.requestedSchema, answer.content ?? {});
  if (!checked.ok) return { action: 'cancel' };
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const [name, value] of Object.entries(checked.content)) {
    content[name] = Array.isArray(value) ? [...value] : (value as string | number | boolean);
  }
  return { action: 'accept', content };
}
