import { join } from 'node:path';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { BuiltInToolFactory } from '@toolbus/assembly';
import { createCodingAgentTool, GITHUB_REPOSITORY_HOST } from '@toolbus/coding-agent';
import type { GuardedFetch } from '@toolbus/core/node';
import type { ApprovalBroker, ApprovalDecision, ApprovalRequest } from '@toolbus/egress';
import { startInterpreterServer } from '@toolbus/interpreter';
import { type CodeInterpreter, CodeInterpreterClient } from '@toolbus/sandbox';
import { remoteEgressTokens, startSandboxEgressIfConnected } from '@toolbus/server';
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
import type { CliConfig } from './cli-config.ts';
import { configuredInterpreter } from './configured-interpreter.ts';
import { egressSecretKey } from './egress-secret-key.ts';

/**
 * How the CLI builds each built-in tool. A tool whose service is not configured is simply not offered (its
 * factory is absent, and assembly reports it as skipped), never a failed turn.
 */
export function builtInToolFactories(options: {
  readonly config: CliConfig;
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
  /** Skills for run_python's sandbox (mounted read-only at /workspace/managed/skills when it runs in-process). */
  readonly skills?: { readonly names: readonly string[]; readonly root: string | undefined };
  /**
   * The configured sandbox service(s), made once per process by a long-running caller (`toolbus serve`), so a
   * pool's health state and background checks are shared by every chat; made here from the config otherwise.
   */
  readonly interpreter?: CodeInterpreter;
}): Map<string, BuiltInToolFactory> {
  const factories = new Map<string, BuiltInToolFactory>();
  factories.set('SearchTool', () => createInternalSearchTool({ index: options.index }));
  // open_url looks in the index first, and fetches through the guarded fetch only what is not there.
  factories.set('OpenURLTool', () => createOpenUrlTool({ fetch: options.fetch, index: options.index }));
  const webSearch = options.config.file.webSearch;
  if (webSearch) {
    factories.set('WebSearchTool', () => {
      const apiKey = webSearch.apiKeyEnv ? options.env[webSearch.apiKeyEnv] : undefined;
      const provider = createWebSearchProvider({
        provider: webSearch.provider,
        ...(apiKey ? { apiKey } : {}),
        ...(webSearch.baseUrl ? { baseUrl: webSearch.baseUrl } : {}),
        ...(webSearch.searchEngineId ? { searchEngineId: webSearch.searchEngineId } : {}),
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
  const image = options.config.file.imageGeneration;
  if (image?.baseUrl && image.model) {
    const apiKey = image.apiKeyEnv ? options.env[image.apiKeyEnv] : undefined;
    factories.set('ImageGenerationTool', () =>
      createGenerateImageTool({
        fetch: options.fetch,
        baseUrl: image.baseUrl as string,
        model: image.model as string,
        storage: options.storage,
        ...omitUndefined({ organizationId: options.organizationId }),
        ...(apiKey ? { apiKey } : {}),
      }),
    );
  }
  // The configured sandbox service, else one started in this process (it says why when it cannot isolate), shared
  // by run_python and coding_agent.
  let inProcessSandbox: Promise<{ interpreter: CodeInterpreter; skills: readonly string[] }> | undefined;
  const sandbox = () => {
    if (options.interpreter !== undefined) {
      return Promise.resolve({ interpreter: options.interpreter, skills: [] as readonly string[] });
    }
    inProcessSandbox ??= (async () => {
      const configured = configuredInterpreter(options.config.file);
      if (configured !== undefined) {
        options.onClose(async () => configured.close());
        return { interpreter: configured.interpreter, skills: [] as readonly string[] };
      }
      const skillsRoot = options.skills?.root;
      const approvals =
        options.egressApprovals ?? (options.egressAsk === undefined ? undefined : { ask: options.egressAsk });
      const egress =
        approvals === undefined
          ? undefined
          : await startSandboxEgressIfConnected({
              storage: options.storage,
              userId: options.userId,
              ...omitUndefined({ organizationId: options.organizationId }),
              caDirectory: join(options.config.home, 'egress-ca'),
              approvals,
              ...omitUndefined({ sessionId: options.egressApprovals?.sessionId }),
            });
      if (egress !== undefined) options.onClose(() => egress.close());
      const server = await startInterpreterServer({
        port: 0,
        ...(skillsRoot ? { skillsRoot } : {}),
        ...omitUndefined({ egress: egress?.provider }),
      });
      options.onClose(() => server.close());
      return {
        // The in-process service is on loopback, so it is reached with plain fetch.
        interpreter: new CodeInterpreterClient({ baseUrl: server.url }),
        skills: skillsRoot ? (options.skills?.names ?? []) : [],
      };
    })();
    return inProcessSandbox;
  };
  // External sandbox services relaying to the standalone egress proxy: each run carries its user's signed token.
  const file = options.config.file;
  const external = options.interpreter !== undefined || (file.sandboxUrls ?? file.sandboxUrl) !== undefined;
  const egressToken =
    external && file.sandboxEgress === 'proxy'
      ? remoteEgressTokens({
          storage: options.storage,
          secretKey: egressSecretKey(options.config, options.env),
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
      ...(skills.length > 0 ? { skills } : {}),
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
    const settings = options.config.file.codingAgent ?? {};
    const token = settings.tokenEnv ? options.env[settings.tokenEnv] : undefined;
    return createCodingAgentTool({
      client: interpreter,
      model: options.model,
      fetch: options.fetch,
      host: {
        ...GITHUB_REPOSITORY_HOST,
        ...(settings.archiveUrl ? { name: 'the repository host', archiveUrl: settings.archiveUrl } : {}),
        ...(settings.tokenArchiveUrl ? { tokenArchiveUrl: settings.tokenArchiveUrl } : {}),
        ...omitUndefined({ webHosts: settings.webHosts }),
      },
      ...(token ? { token } : {}),
      ...omitUndefined({ localRoots: settings.localRoots }),
    });
  });
  return factories;
}
