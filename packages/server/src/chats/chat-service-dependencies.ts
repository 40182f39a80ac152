import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ToolAssemblyCache } from '@toolbus/assembly';
import type { McpRefreshLock } from '@toolbus/mcp';
import type { WarningLogger } from '@toolbus/spec';
import type { Persona, Storage } from '@toolbus/storage';
import type { DocumentSearchIndex } from '@toolbus/tools';
import type { ApprovalHub } from '../approvals/approval-hub.ts';
import type { TurnToolOptions } from '../built-in-tools/turn-tool-options.ts';
import type { ElicitationHub } from '../elicitations/elicitation-hub.ts';
import type { TurnQueue } from '../scale-out/turn-queue.ts';
import type { ServerOptions } from '../server-options.ts';
import type { TurnRunner } from './turn-runner.ts';

/** What the chat operations need from the server. */
export interface ChatServiceDependencies {
  readonly storage: Storage;
  readonly runner: TurnRunner;
  /** Durable turns: queued for a worker replica instead of run in this process. */
  readonly queue?: TurnQueue | undefined;
  readonly defaultModel: string;
  readonly allowedModels: ReadonlySet<string>;
  readonly resolveModel: (model: string) => LanguageModelV4;
  readonly builtInToolFactories: NonNullable<ServerOptions['builtInToolFactories']>;
  /** A chat turn's tool search limits and recovery dialects for its model (the deployment's settings). */
  readonly turnToolOptions?: (model: string) => TurnToolOptions;
  readonly fetch: typeof fetch;
  /** Where assembly reports what it left out (a skipped row, a dropped credential header), by name only. */
  readonly logger?: WarningLogger;
  readonly assemblyCache?: ToolAssemblyCache;
  readonly systemPrompt: string;
  readonly defaultPersona: () => Promise<Persona | undefined>;
  readonly concurrentTurnsPerUser: number;
  readonly maxCycles?: number;
  /** Put tool arguments and results on spans (default off). */
  readonly recordToolContent?: boolean;
  /** The OAuth callback URL OAuth MCP servers were connected with (their tokens are sent only with it set). */
  readonly mcpOAuthRedirectUrl?: string;
  /** Serialises MCP OAuth token refreshes across replicas (default: within this process). */
  readonly mcpOAuthRefreshLock?: McpRefreshLock;
  /** Where egress approvals of a turn's sandboxed code wait for the chat's owner. */
  readonly approvals?: ApprovalHub;
  /** Where MCP servers' questions to the user wait for the chat's owner. */
  readonly elicitations?: ElicitationHub;
  /** The models' input window in tokens, which Deep Research checks before it runs. */
  readonly contextWindowTokens?: number;
  /** The document index; each turn's built-in tools get its organisation's view only. */
  readonly documentIndex?: DocumentSearchIndex;
  /** Title a new chat from its first exchange (chat-titles.ts). */
  readonly titleChats?: boolean;
}
