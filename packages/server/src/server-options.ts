import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { BuiltInToolFactory, ToolAssemblyCache } from '@toolbus/assembly';
import type { ModelEnvironment } from '@toolbus/core';
import type { BlobStore, SkillRegistry, ValidateSkillBundleOptions } from '@toolbus/skills';
import type { Storage, User } from '@toolbus/storage';
import type { DocumentSearchIndex } from '@toolbus/tools';
import type { TurnApprovals } from './approvals/approval-hub.ts';
import type { TurnToolSettings } from './built-in-tools/turn-tool-options.ts';
import type { LibrarySettingsBackend } from './library/library-settings.ts';
import type { HealthComponent } from './observability/health-component.ts';
import type { ScaleOutBackend } from './scale-out/scale-out-backend.ts';
import type { ServerLogger } from './server-logger.ts';

/** What a deployment's built-in tools need to be built for one turn. */
export interface BuiltInToolContext {
  readonly user: User;
  /** The organisation the turn runs in: files and memories a tool saves for the user belong to it. */
  readonly organizationId: string;
  /**
   * The server's document index as the turn's organisation sees it (absent without `documentIndex`): give it to
   * internal_search and open_url, so a turn never reads another organisation's documents.
   */
  readonly documentIndex?: DocumentSearchIndex;
  readonly model: LanguageModelV4;
  /** Registers a cleanup to run when the turn ends (a sandbox started for it). */
  readonly onClose: (cleanup: () => Promise<void>) => void;
  /**
   * The turn's egress approvals (absent outside a chat turn): give the egress proxy of the turn's sandbox this
   * broker and wait, and ASK actions appear as cards in the chat.
   */
  readonly approvals?: TurnApprovals;
}

/**
 * Who may call the server. `local`: every request acts as one local user with every right; allowed only on a
 * loopback address and only with a loopback `Host` header (so a web page cannot reach it by DNS rebinding).
 * `api-keys`: each request carries an API key (`Authorization: Bearer tb_…`) or a web session cookie.
 */
export type ServerAuthMode = 'local' | 'api-keys';

/** Per-user limits; a request over one is answered 429 with `Retry-After`. */
export interface ServerLimits {
  /** Requests per user per minute (default 600). */
  readonly requestsPerMinute?: number;
  /** Turns one user may run at once (default 4). */
  readonly concurrentTurnsPerUser?: number;
  /** Largest JSON body (default 1 MiB). */
  readonly maxBodyBytes?: number;
  /** Largest uploaded file (default 20 MiB). */
  readonly maxUploadBytes?: number;
}

/** Options for `createServer`. */
export interface ServerOptions {
  readonly storage: Storage;
  /** The model a turn uses unless it names another allowed one (`provider:model`, as `toolbus chat --model`). */
  readonly defaultModel: string;
  /** Other models a request may name in `model` (a model string can name an endpoint, so it is never free-form). */
  readonly allowedModels?: readonly string[];
  /**
   * Resolves a model string to a model (default: `resolveLanguageModel` with {@link modelEnvironment}, one model
   * per name for the process, each reading its stream over `createNodeHttpFetch`).
   */
  readonly resolveModel?: (model: string) => LanguageModelV4;
  /** The environment the default model resolver reads (keys, base URLs); default the process environment. */
  readonly modelEnvironment?: ModelEnvironment;
  /** How built-in tools are made; ids without a factory are skipped for the turn. Default: none. */
  readonly builtInToolFactories?: (context: BuiltInToolContext) => ReadonlyMap<string, BuiltInToolFactory>;
  /**
   * The deployment's settings every chat turn honours, as `toolbus chat` does: per-model tool limits (a
   * `tool_search` tool above them) and the text tool-call dialects recovery tries first (default: core's).
   */
  readonly turnSettings?: TurnToolSettings;
  /** The fetch OpenAPI and MCP tools use (default: the strict guarded fetch). */
  readonly fetch?: typeof fetch;
  /** Keeps parsed OpenAPI documents and MCP connections between turns. */
  readonly assemblyCache?: ToolAssemblyCache;
  /** The system prompt of every chat turn (default {@link DEFAULT_SYSTEM_PROMPT}). */
  readonly systemPrompt?: string;
  /**
   * Title each new chat from its first exchange: its first message at once, then a short title the model writes
   * after the first answer (one extra small model request per chat). Default off.
   */
  readonly titleChats?: boolean;
  /** Default `api-keys`. */
  readonly auth?: ServerAuthMode;
  /** The user of `local` mode (created as `local@toolbus.invalid` when not given). */
  readonly localUser?: User;
  /** The persona of chats that name none (default: the persona named `default`, else the first). */
  readonly defaultPersonaId?: string;
  readonly limits?: ServerLimits;
  /** Model steps per chat turn, and orchestrator cycles of a Deep Research turn (default the core's and research's). */
  readonly maxCycles?: number;
  readonly logger?: ServerLogger;
  /** Parts the server depends on (the sandbox services), whose state `GET /health` reports. */
  readonly healthComponents?: readonly HealthComponent[];
  /**
   * Where uploaded skills are stored, and the deployment's validation rules (reserved names, size limits) — the
   * same ones `toolbus skills` applies. The admin skill routes answer 501 without it.
   */
  readonly skills?: {
    readonly registry: SkillRegistry;
    readonly blobStore: BlobStore;
    readonly validation?: ValidateSkillBundleOptions;
  };
  /**
   * The index internal search reads (the admin document routes answer 501 without it). Each organisation's
   * documents are its own: turns and admin routes see only their organisation's view of it.
   */
  readonly documentIndex?: DocumentSearchIndex;
  /** Server-side folders an admin may index by path (none by default). */
  readonly documentRoots?: readonly string[];
  /** Put tool arguments and results on OpenTelemetry spans (default false: they may hold personal data). */
  readonly recordToolContentInSpans?: boolean;
  /**
   * How long a turn's packets wait to be stored together with every other running turn's, in one transaction,
   * before they are streamed (only stored packets are sent, so a client never sees one a crash loses). Longer
   * means fewer commits and fewer, larger packets (text deltas of one window become one) for a few ms of latency.
   * Default 0: at the next event-loop pass.
   */
  readonly packetFlushMs?: number;
  /**
   * While storage does not answer (PostgreSQL restarting), a turn's writes are retried for `writeMs` (default
   * 30 s) before the turn is stopped; such a turn then waits up to `closeMs` (default 10 min) for storage to
   * write its end.
   */
  readonly storageRetry?: { readonly writeMs?: number; readonly closeMs?: number };
  /** Stream heartbeat interval (default 15 s). */
  readonly heartbeatMs?: number;
  /** A built web app (the folder with its `index.html`) to serve at `/`; none by default. */
  readonly webRoot?: string;
  /** Where the admin settings live (default: in storage); `toolbus serve` passes its config file. */
  readonly settings?: LibrarySettingsBackend;
  /**
   * The origin browsers reach this server at (`https://toolbus.example.com`): MCP OAuth redirect URIs are built on it
   * alone, and when it is https every cookie is `Secure` (behind a TLS proxy the request itself is plain http).
   * Without it, a request's own origin is used, and only when it names a loopback host: OAuth flows are refused
   * for a request by any other name (its Host header is the client's to set).
   */
  readonly publicOrigin?: string;
  /** How long an egress approval waits for the chat's owner (default 180 s). */
  readonly approvalTimeoutMs?: number;
  /**
   * How long an MCP server's question to the user (elicitation) waits for the answer before the server gets
   * `cancel` (default 5 minutes).
   */
  readonly elicitationTimeoutMs?: number;
  /**
   * The input window of the server's models in tokens. Deep Research (`research: true`) refuses to run without it
   * (it needs room for its sources); chat turns do not use it.
   */
  readonly contextWindowTokens?: number;
  /**
   * Several replicas of one deployment (docs/scale-out.md): turns queued for worker replicas, their packets,
   * stops and per-user slots shared. Default: every turn runs in this process.
   */
  readonly scaleOut?: ScaleOutBackend;
  /**
   * Checks every answer of a route against the responses it declares (`@toolbus/api-schema`): an undeclared
   * status or field is answered 500 naming it. Default: on in a `node --test` process (the runner sets
   * NODE_TEST_CONTEXT there), so every route test also proves its answers' shape; off otherwise, as it parses
   * each JSON answer a second time.
   */
  readonly checkResponses?: boolean;
}

/** The default system prompt of a chat turn. */
export const DEFAULT_SYSTEM_PROMPT = [
  'You are a helpful assistant with tools. Use them when they help; answer directly when they do not.',
  "When you use information from a tool's documents, cite it inline with its number in square brackets, like [1].",
  'Never invent citation numbers.',
].join(' ');
