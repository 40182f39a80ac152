import type { Client } from '@modelcontextprotocol/client';
import {
  checkElicitationContent,
  type ElicitationAnswer,
  type ElicitationQuestion,
  type ElicitationSchema,
  isPlainObject,
} from '@toolbus/spec';
import { CallScope } from './call-scope.ts';

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

type ElicitResult =
  | { action: 'accept'; content?: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' }
  | { action: 'cancel' };

/**
 * Routes a server's question to the tool call that is waiting on the server. One connection serves many calls
 * (and, for a server without per-user auth, many users), so the question must reach the right one: the
 * {@link CallScope} says whose it is; when nobody can tell (several calls in flight), it is cancelled.
 */
export class McpElicitationRouter {
  readonly #calls: CallScope<McpElicitationHandler>;

  private constructor(calls: CallScope<McpElicitationHandler>) {
    this.#calls = calls;
  }

  /** A router for one connection (async: `node:async_hooks` is loaded when a connection opens, not on import). */
  static async create(): Promise<McpElicitationRouter> {
    return new McpElicitationRouter(await CallScope.create<McpElicitationHandler>());
  }

  /** Runs one call with `handler` answering its questions (none: its questions are cancelled). */
  during<T>(handler: McpElicitationHandler | undefined, operation: () => Promise<T>): Promise<T> {
    return this.#calls.during(handler, operation);
  }

  /** Installs the `elicitation/create` handler on a client built with {@link mcpElicitationCapabilities}. */
  register(client: Client, serverName: string): void {
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const question = toQuestion(request.params as unknown, serverName);
      const handler = this.#calls.current();
      if (question === undefined || handler === undefined) return { action: 'cancel' };
      const answer = await handler(question, ctx.mcpReq.signal);
      return toResult(question, answer) as never;
    });
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
