import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { BuiltInToolFactory } from '@toolbus/assembly';
import { createCodingAgentTool, GITHUB_REPOSITORY_HOST } from '@toolbus/coding-agent';
import type { GuardedFetch } from '@toolbus/core/node';
import type { ApprovalBroker, ApprovalDecision, ApprovalRequest } from '@toolbus/egress';
import type { CodeInterpreter } from '@toolbus/sandbox';
import { omitUndefined } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import {
  createAddMemoryTool,
  createGenerateImageTool,
  createInternalSearchTool,
  createOpenUrlTool,
  createPythonTool,
  createReadFileTool,
  createWebSearchProvider,
  createWebSearchTool,
  type DocumentSearchIndex,
  type WebSearchProviderConfig,
} from '@toolbus/tools';
import { remoteEgressTokens } from '../egress/remote-egress-tokens.ts';
import type { BuiltInToolSettings } from './built-in-tool-settings.ts';
import type { InProcessSandbox, SandboxSkills } from './in-process-sandbox.ts';
import { turnSandbox } from './turn-sandbox.ts';

/** Options for {@link builtInToolFactories}. */
export interface BuiltInToolFactoriesOptions {
  /** The deployment's settings (the config file). */
  readonly settings: BuiltInToolSettings;
  /** Where the in-process egress proxy keeps its CA (the toolbus home's `egress-ca` folder). */
  readonly egressCaDirectory: string;
  /**
   * The secret key egress run tokens are signed with, read only when `sandboxEgress` is `proxy` and a sandbox
   * service is configured.
   */
  readonly egressSecretKey: () => Uint8Array;
  readonly index: DocumentSearchIndex;
  readonly storage: Storage;
  /** The guarded fetch (every connection checked); the coding agent downloads archives only through it. */
  readonly fetch: GuardedFetch;
  readonly userId: string;
  /**
   * The organisation files and memories saved for the user belong to, and memories are read from (the server's
   * turn); default the default one.
   */
  readonly organizationId?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly model: LanguageModelV4;
  /** Cleanups to run when the chat ends (an in-process sandbox started for python). */
  readonly onClose: (cleanup: () => Promise<void>) => void;
  /**
   * Asks the person about an egress action that needs approval. With it, and with connected apps, an in-process
   * run_python sandbox gets network through the egress proxy; without either, it has no network at all.
   */
  readonly egressAsk?: (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;
  /**
   * The server's approvals of this turn (`toolbus serve`): like `egressAsk`, but ASK actions become cards in the
   * chat. Session grants are per `sessionId` (the chat).
   */
  readonly egressApprovals?: {
    readonly broker: ApprovalBroker;
    readonly timeoutMs: number;
    readonly sessionId?: string;
  };
  /**
   * Skills for run_python's sandbox (mounted read-only at /workspace/managed/skills when it runs in-process): the
   * same for every turn (`toolbus chat`, one process per chat), or asked for when the turn first builds
   * run_python or coding_agent (`toolbus serve`: the skills stored at that moment, which the turn keeps until it
   * ends; the function registers their release with `onClose`).
   */
  readonly skills?: TurnSkills | (() => Promise<TurnSkills>);
  /**
   * The configured sandbox service(s), made once per process by a long-running caller (`toolbus serve`), so a
   * pool's health state and background checks are shared by every chat; made here from the config otherwise.
   */
  readonly interpreter?: CodeInterpreter;
  /**
   * The sandbox this process starts for itself when none is configured, shared by every turn (`toolbus serve`
   * makes one per process); without it, one is made here and closed with `onClose`.
   */
  readonly inProcessSandbox?: InProcessSandbox;
}

/** The skills of a turn: what its sandbox mounts, and what run_python's description says of them. */
export interface TurnSkills extends SandboxSkills {
  /**
   * What the model is told of the skills in run_python's description (`renderSkillsPromptSection`: each name,
   * description and SKILL.md path); without it, one sentence says where skills are (`toolbus chat` names them in
   * its system prompt instead).
   */
  readonly promptSection?: string;
}

/**
 * How `toolbus chat` and every `toolbus serve` turn build each built-in tool. A tool whose service is not configured
 * is simply not offered (its factory is absent, and assembly reports it as skipped), never a failed turn. Building
 * them starts nothing: a sandbox is asked for at the first run_python or coding_agent call.
 */
export function builtInToolFactories(options: BuiltInToolFactoriesOptions): Map<string, BuiltInToolFactory> {
  const factories = new Map<string, BuiltInToolFactory>();
  factories.set('SearchTool', () => createInternalSearchTool({ index: options.index }));
  // open_url looks in the index first, and fetches through the guarded fetch only what is not there.
  factories.set('OpenURLTool', () => createOpenUrlTool({ fetch: options.fetch, index: options.index }));
  const webSearch = options.settings.webSearch;
  if (webSearch) {
    factories.set('WebSearchTool', () => {
      const apiKey = webSearch.apiKeyEnv ? options.env[webSearch.apiKeyEnv] : undefined;
      const provider = createWebSearchProvider({
        provider: webSearch.provider,
        ...omitUndefined({
          apiKey: apiKey || undefined,
          baseUrl: webSearch.baseUrl || undefined,
          searchEngineId: webSearch.searchEngineId || undefined,
        }),
      } as WebSearchProviderConfig);
      return createWebSearchTool({ provider, fetch: options.fetch });
    });
  }
  factories.set('FileReaderTool', () => createReadFileTool({ storage: options.storage }));
  factories.set('MemoryTool', () =>
    createAddMemoryTool({
      storage: options.storage,
      model: options.model,
      ...omitUndefined({ organizationId: options.organizationId }),
    }),
  );
  const image = options.settings.imageGeneration;
  if (image?.baseUrl && image.model) {
    const apiKey = image.apiKeyEnv ? options.env[image.apiKeyEnv] : undefined;
    factories.set('ImageGenerationTool', () =>
      createGenerateImageTool({
        fetch: options.fetch,
        baseUrl: image.baseUrl as string,
        model: image.model as string,
        storage: options.storage,
        ...omitUndefined({ organizationId: options.organizationId, apiKey: apiKey || undefined }),
      }),
    );
  }
  // Shared by run_python and coding_agent, and made only when one of them runs.
  const sandbox = turnSandbox(options);
  // External sandbox services relaying to the standalone egress proxy: each run carries its user's signed token.
  const file = options.settings;
  const external = options.interpreter !== undefined || (file.sandboxUrls ?? file.sandboxUrl) !== undefined;
  const egressToken =
    external && file.sandboxEgress === 'proxy'
      ? remoteEgressTokens({
          storage: options.storage,
          secretKey: options.egressSecretKey(),
          userId: options.userId,
          ...omitUndefined({
            organizationId: options.organizationId,
            sessionId: options.egressApprovals?.sessionId,
          }),
        })
      : undefined;
  factories.set('PythonTool', async () => {
    const { interpreter, skills } = await sandbox();
    return createPythonTool({
      client: interpreter,
      ...omitUndefined({ egressToken }),
      ...(skills.names.length > 0
        ? { skills: skills.names, ...omitUndefined({ skillsDescription: skills.promptSection || undefined }) }
        : {}),
      files: {
        readContent: (fileId) => options.storage.files.readContent(fileId),
        saveGenerated: (file) =>
          options.storage.files.put({
            userId: options.userId,
            ...omitUndefined({ organizationId: options.organizationId }),
            ...file,
          }),
      },
    });
  });
  factories.set('CodingAgentTool', async () => {
    const { interpreter } = await sandbox();
    const settings = options.settings.codingAgent ?? {};
    const token = settings.tokenEnv ? options.env[settings.tokenEnv] : undefined;
    return createCodingAgentTool({
      client: interpreter,
      model: options.model,
      fetch: options.fetch,
      host: {
        ...GITHUB_REPOSITORY_HOST,
        ...(settings.archiveUrl ? { name: 'the repository host', archiveUrl: settings.archiveUrl } : {}),
        ...omitUndefined({
          tokenArchiveUrl: settings.tokenArchiveUrl || undefined,
          webHosts: settings.webHosts,
        }),
      },
      ...omitUndefined({ token: token || undefined, localRoots: settings.localRoots }),
    });
  });
  return factories;
}
