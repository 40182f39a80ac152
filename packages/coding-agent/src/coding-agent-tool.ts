import type { LanguageModelV4 } from '@ai-sdk/provider';
import { BUILT_IN_TOOLS_BY_ID, defineTool, type RunChatTurnOptions } from '@toolbus/core';
import type { GuardedFetch } from '@toolbus/core/node';
import type { CodeInterpreter } from '@toolbus/sandbox';
import { omitUndefined, type Tool, ToolbusError, ToolCallError, ToolExecutionError } from '@toolbus/spec';
import * as z from 'zod';
import { RepositoryError } from './coding-agent-error.ts';
import { type CodingAgentLimits, DEFAULT_CODING_AGENT_LIMITS } from './coding-agent-limits.ts';
import { type CodingAgentPrompts, DEFAULT_CODING_AGENT_PROMPTS } from './coding-agent-prompts.ts';
import { openRepositorySession } from './open-repository-session.ts';
import { GITHUB_REPOSITORY_HOST, type RepositoryHost } from './repository-host.ts';
import { parseRepositorySource } from './repository-source.ts';
import { type CodingAgentOutcome, runCodingAgent } from './run-coding-agent.ts';

/** Options for {@link createCodingAgentTool}. */
export interface CodingAgentToolOptions {
  /** The sandbox service (one server or a pool); it must support sessions. */
  readonly client: CodeInterpreter;
  /** The model the agent runs on (usually the chat's own). */
  readonly model: LanguageModelV4;
  /** The guarded fetch (`createGuardedFetch` of @toolbus/core): archives are downloaded only through it. */
  readonly fetch: GuardedFetch;
  /** Where repositories come from. Default github.com. */
  readonly host?: RepositoryHost;
  /** A token for private repositories, tried only after the anonymous download failed. Never logged. */
  readonly token?: string;
  /** Folders on this machine the agent may open (a path or `file:` URL inside one). Default: none. */
  readonly localRoots?: readonly string[];
  readonly limits?: Partial<CodingAgentLimits>;
  readonly prompts?: Partial<CodingAgentPrompts>;
  /** The model reasons natively: no think tool. Default false. */
  readonly reasoningModel?: boolean;
  /** The session's TTL. Default: the wall-clock budget plus 10 minutes. */
  readonly sessionTtlSeconds?: number;
  readonly stream?: RunChatTurnOptions['stream'];
  /** How long an availability answer is reused. Default 30 s. */
  readonly availabilityCacheMs?: number;
  /** Called with each run's outcome (tests, logs). */
  readonly onOutcome?: (outcome: CodingAgentOutcome & { readonly sessionId: string }) => void;
  /** Receives failures to delete a session (its TTL reaps it anyway). */
  readonly onCleanupError?: (error: unknown) => void;
}

const entry = BUILT_IN_TOOLS_BY_ID.get('CodingAgentTool');

/**
 * `coding_agent`: answers a question about a repository by exploring it with bash. Each call downloads the
 * repository's archive through the guarded fetch (or packs an allowed local folder), unpacks it in a fresh
 * sandbox session (no network inside), runs the coding agent there, and deletes the session at the end, whatever
 * happened (its TTL reaps it if this process dies). Available only while the sandbox answers and has sessions.
 * A repository that cannot be opened is an error the model reads (it may have named it wrong).
 */
export function createCodingAgentTool(options: CodingAgentToolOptions): Tool {
  const limits: CodingAgentLimits = { ...DEFAULT_CODING_AGENT_LIMITS, ...options.limits };
  const prompts: CodingAgentPrompts = { ...DEFAULT_CODING_AGENT_PROMPTS, ...options.prompts };
  const host = options.host ?? GITHUB_REPOSITORY_HOST;
  const availabilityCacheMs = options.availabilityCacheMs ?? 30_000;
  const ttlSeconds = options.sessionTtlSeconds ?? Math.ceil(limits.wallClockMs / 1000) + 600;
  let availability: { at: number; value: Promise<boolean> } | undefined;
  const available = async () =>
    (await options.client.isAvailable()) &&
    (await options.client.supports('createSession', 'runSessionCommand', 'deleteSession'));

  return defineTool({
    name: entry?.name ?? 'coding_agent',
    displayName: 'Coding Agent',
    description:
      'Answer a question about a code repository by exploring it with shell commands (rg, cat, git log) in a ' +
      'sandbox. Give the question with all the context it needs, and the repository. The answer cites path:line.',
    parameters: z.object({
      query: z.string().min(1).describe('The question or task about the repository, self-contained'),
      github_repo: z
        .string()
        .min(1)
        .describe(
          `The repository: owner/repo, https://${host.webHosts[0] ?? 'github.com'}/owner/repo, or git@${host.webHosts[0] ?? 'github.com'}:owner/repo.git`,
        ),
    }),
    exampleArguments: { query: 'Where is the HTTP server started?', github_repo: 'owner/repo' },
    // Download, unpack and the final answer take time beyond the loop's own budget.
    timeoutMs: limits.wallClockMs + limits.commandTimeoutMs + limits.connectTimeoutMs + 10 * 60_000,
    isAvailable: () => {
      if (!availability || Date.now() - availability.at > availabilityCacheMs) {
        const value = available().catch(() => false);
        availability = { at: Date.now(), value };
      }
      return availability.value;
    },
    emitStart: (_placement, emitter, call) =>
      emitter.emit({
        type: 'coding-agent-start',
        query: String(call.arguments.query ?? ''),
        repository: String(call.arguments.github_repo ?? ''),
      }),
    async run({ query, github_repo }, context) {
      let session: Awaited<ReturnType<typeof openRepositorySession>> | undefined;
      try {
        const source = await parseRepositorySource(github_repo, {
          host,
          ...omitUndefined({ localRoots: options.localRoots }),
        });
        session = await openRepositorySession({
          client: options.client,
          source,
          fetch: options.fetch,
          host,
          limits,
          ttlSeconds,
          signal: context.signal,
          ...omitUndefined({ token: options.token, onCleanupError: options.onCleanupError }),
        });
        const outcome = await runCodingAgent({
          query,
          repository: source.label,
          model: options.model,
          client: options.client,
          sessionId: session.sessionId,
          history: session.history,
          listing: session.listing,
          limits,
          prompts,
          reasoningModel: options.reasoningModel ?? false,
          context,
          signal: context.signal,
          ...omitUndefined({ stream: options.stream }),
        });
        options.onOutcome?.({ ...outcome, sessionId: session.sessionId });
        return {
          llmFacing: outcome.answer,
          rich: { type: 'agent-report', report: outcome.answer, documents: [] },
        };
      } catch (error) {
        if (context.signal.aborted) throw error;
        if (RepositoryError.isInstance(error)) {
          throw new ToolCallError({
            code: error.code,
            message: error.message,
            modelMessage: error.message,
            cause: error,
          });
        }
        if (ToolbusError.isInstance(error)) throw error;
        throw new ToolExecutionError({
          code: 'coding_agent_failed',
          message: `The coding agent could not run: ${error instanceof Error ? error.message : String(error)}`,
          cause: error,
          emitErrorPacket: true,
        });
      } finally {
        await session?.close();
      }
    },
  });
}
