import type { chatListSchema, createChatBody, stopTurnSchema } from '@toolbus/api-schema';
import { omitUndefined } from '@toolbus/spec';
import type { z } from 'zod';
import type {
  ChatDetailView,
  ChatSummary,
  MeView,
  SendMessageRequest,
  SessionStateView,
  SessionView,
  StartedTurn,
  UploadedFileView,
  WirePacket,
} from './api-types.ts';
import { errorOfResponse, ToolbusClientError } from './client-error.ts';
import { type TurnStreamOptions, turnStream } from './turn-stream.ts';

/** How a {@link ToolbusClient} reaches and authenticates to the server. */
export interface ToolbusClientOptions {
  /** The server's origin, e.g. `http://127.0.0.1:8787`; empty for the page's own origin. */
  readonly baseUrl?: string;
  /** An API key (`tb_…`), sent as `Authorization: Bearer`. Leave unset in a browser signed in with a session. */
  readonly apiKey?: string;
  /** The CSRF token of a web session (sent on every request that changes something). */
  readonly csrfToken?: string;
  /** The fetch to use (default the global one). */
  readonly fetch?: typeof fetch;
}

/** One JSON request. */
export interface RequestOptions {
  readonly body?: unknown;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly signal?: AbortSignal;
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A typed client for `toolbus serve`: chats, turns and their resumable packet streams, files, keys and the admin
 * API. Browser-safe (only `fetch`, streams and `TextDecoder`); every refusal is a {@link ToolbusClientError}.
 */
export class ToolbusClient {
  readonly baseUrl: string;
  #apiKey: string | undefined;
  #csrfToken: string | undefined;
  readonly #fetch: typeof fetch;

  constructor(options: ToolbusClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? '').replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#csrfToken = options.csrfToken;
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** The CSRF token in use (after {@link signIn}); keep it to build a client again after a reload. */
  get csrfToken(): string | undefined {
    return this.#csrfToken;
  }

  /** Any path of the server, with this client's credentials; refusals throw. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.raw(method, path, {
      ...omitUndefined({ query: options.query, signal: options.signal }),
      ...(options.body === undefined
        ? {}
        : { body: JSON.stringify(options.body), contentType: 'application/json' }),
    });
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  /** A request whose body is bytes (uploads); answers the parsed JSON. */
  async upload<T>(
    path: string,
    body: Blob | ArrayBuffer | Uint8Array,
    options: { readonly contentType: string; readonly query?: RequestOptions['query'] },
  ): Promise<T> {
    const response = await this.raw('POST', path, {
      body: body as BodyInit,
      contentType: options.contentType,
      ...omitUndefined({ query: options.query }),
    });
    return (await response.json()) as T;
  }

  /** A request answered by its raw response (non-2xx throws). */
  async raw(
    method: string,
    path: string,
    options: {
      readonly body?: BodyInit;
      readonly contentType?: string;
      readonly query?: RequestOptions['query'];
      readonly signal?: AbortSignal;
      readonly headers?: Readonly<Record<string, string>>;
    } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (options.contentType) headers['content-type'] = options.contentType;
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    if (this.#csrfToken && !safeMethods.has(method.toUpperCase())) headers['x-csrf-token'] = this.#csrfToken;
    let response: Response;
    try {
      response = await this.#fetch(this.url(path, options.query), {
        method,
        headers,
        credentials: 'same-origin',
        ...omitUndefined({ body: options.body, signal: options.signal }),
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new ToolbusClientError({
        code: 'network_error',
        message: `${method} ${path}: the server could not be reached.`,
        cause: error,
      });
    }
    if (!response.ok) throw await errorOfResponse(response);
    return response;
  }

  /** The absolute URL of a server path with a query. */
  url(path: string, query?: RequestOptions['query']): string {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) search.set(key, String(value));
    }
    const suffix = search.size > 0 ? `?${search}` : '';
    return `${this.baseUrl}${path}${suffix}`;
  }

  /** Who the caller is. */
  me(): Promise<MeView> {
    return this.request('GET', '/v1/me');
  }

  /**
   * Whether this caller is signed in (a session cookie, a key, or local mode): answered 200 either way, so a page
   * can decide between its sign-in form and the app without a 401 in the browser's console.
   */
  sessionState(): Promise<SessionStateView> {
    return this.request('GET', '/v1/session');
  }

  /**
   * Signs a browser in with an API key: the server sets an HTTP-only session cookie and returns the CSRF token,
   * which this client then sends; the key itself is dropped (the cookie carries the session).
   */
  async signIn(apiKey: string): Promise<SessionView> {
    const session = await new ToolbusClient({
      baseUrl: this.baseUrl,
      apiKey,
      fetch: this.#fetch,
    }).request<SessionView>('POST', '/v1/session');
    this.#apiKey = undefined;
    this.#csrfToken = session.csrfToken;
    return session;
  }

  /** Ends the browser session. */
  async signOut(): Promise<void> {
    await this.request('DELETE', '/v1/session');
    this.#csrfToken = undefined;
  }

  /** The caller's chats, most recent first. */
  async listChats(): Promise<readonly ChatSummary[]> {
    return (await this.request<z.output<typeof chatListSchema>>('GET', '/v1/chats')).chats;
  }

  /** Creates a chat. */
  createChat(input: z.input<typeof createChatBody> = {}): Promise<ChatSummary> {
    return this.request('POST', '/v1/chats', { body: input });
  }

  /** A chat with its messages and turns. */
  getChat(chatId: string): Promise<ChatDetailView> {
    return this.request('GET', `/v1/chats/${encodeURIComponent(chatId)}`);
  }

  /** Renames a chat. */
  renameChat(chatId: string, title: string): Promise<ChatSummary> {
    return this.request('PATCH', `/v1/chats/${encodeURIComponent(chatId)}`, { body: { title } });
  }

  /** Deletes a chat (a running turn is stopped first). */
  async deleteChat(chatId: string): Promise<void> {
    await this.request('DELETE', `/v1/chats/${encodeURIComponent(chatId)}`);
  }

  /** Starts a turn; it runs on the server whether or not anyone reads it. Follow it with {@link streamTurn}. */
  sendMessage(chatId: string, input: SendMessageRequest): Promise<StartedTurn> {
    return this.request('POST', `/v1/chats/${encodeURIComponent(chatId)}/messages`, {
      body: input,
      query: { stream: 'none' },
    });
  }

  /**
   * A turn's packets after `after`, live until the turn ends. A dropped connection is reopened from the last
   * sequence received (`?after=`), so nothing is lost or repeated.
   */
  streamTurn(chatId: string, turn: number, options: TurnStreamOptions = {}): AsyncIterable<WirePacket> {
    return turnStream(
      (after, signal) =>
        this.raw('GET', `/v1/chats/${encodeURIComponent(chatId)}/turns/${turn}/stream`, {
          query: { after, format: 'sse' },
          headers: { accept: 'text/event-stream' },
          signal,
        }),
      options,
    );
  }

  /** Stops a running turn; answers whether one was running. */
  async stopTurn(chatId: string, turn: number): Promise<boolean> {
    return (
      await this.request<z.output<typeof stopTurnSchema>>(
        'POST',
        `/v1/chats/${encodeURIComponent(chatId)}/turns/${turn}/stop`,
      )
    ).stopped;
  }

  /** Uploads a file to attach to a message. */
  uploadFile(
    name: string,
    content: Blob | ArrayBuffer | Uint8Array,
    mediaType: string,
  ): Promise<UploadedFileView> {
    return this.upload('/v1/files', content, {
      contentType: mediaType || 'application/octet-stream',
      query: { name },
    });
  }

  /** The URL of a stored file's bytes (for `<img src>`; the session cookie authenticates it). */
  fileContentUrl(fileId: string): string {
    return this.url(`/v1/files/${encodeURIComponent(fileId)}/content`);
  }

  /** The URL of an indexed document's text by its link (a citation's `file://` link, opened through the server). */
  documentTextUrl(link: string): string {
    return this.url('/v1/documents/text', { link });
  }
}
