// A whole toolbus deployment for the browser tests and the benchmark, on loopback: a scripted model server
// (OpenAI wire format), a real toolbus server (api-keys auth, the built web app at /), real run_python in the
// in-process bubblewrap sandbox, and test tools that stream real packets through the runner (parallel searches,
// sub-agents that place their own tools one level deeper), and a loopback HTTPS "mail API" that run_python reaches
// only through the egress proxy once the user has connected it as an app.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveLanguageModel } from '@toolbus/core';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import { type ResearchWorld, startResearchWorld } from '@toolbus/research/testing';
import { createServer, type ListeningServer, listen, type ToolbusServer } from '@toolbus/server';
import { createFilesystemBlobStore, openSqliteSkillRegistry } from '@toolbus/skills';
import { omitUndefined } from '@toolbus/spec';
import { openStorage, type Storage } from '@toolbus/storage';
import { openDocumentIndex } from '@toolbus/tools';
import { webRoot } from '@toolbus/web';
import { pythonToolWithEgress } from '../../../packages/server/src/__fixtures__/egress-world.ts';
import { type MailApi, startMailApi } from './mail-api.ts';
import { modelHandler } from './scripted-answers.ts';
import { ToolHold, testTools } from './ui-test-tools.ts';

export type { MailApi } from './mail-api.ts';

/** The model name that plays Deep Research's steps (the research world's scripted model). */
export const RESEARCH_MODEL = 'research:scripted';

/** A running world. */
export interface UiWorld {
  readonly url: string;
  readonly adminKey: string;
  readonly server: ToolbusServer;
  readonly storage: Storage;
  readonly model: ScriptedModelServer;
  /** A server folder an admin may index (two small Markdown files). */
  readonly documentsFolder: string;
  /** The loopback HTTPS mail API (`https://mail.test:<port>` from the sandbox) and what it received. */
  readonly mail: MailApi;
  /** The tool results the model read after the mail question, in order. */
  readonly toolResults: readonly string[];
  /**
   * Deep Research's world: its scripted research model (offered as the model {@link RESEARCH_MODEL}) and the real
   * web_search and open_url tools against a loopback search backend (the `Researcher` persona's tools).
   */
  readonly research: ResearchWorld;
  /** Keeps the test tools' first step running until the returned function is called (see {@link ToolHold}). */
  holdTools(): () => void;
  close(): Promise<void>;
}
/** Starts the world; `close` stops every server and removes the data folder. */
export async function startUiWorld(
  options: {
    readonly stepMs?: number;
    readonly chunkMs?: number;
    /** The server's fetch for MCP servers and OpenAPI documents (default: the strict guarded one). */
    readonly fetch?: typeof fetch;
    /** The server's rate limit per user (default: too high to matter). */
    readonly requestsPerMinute?: number;
  } = {},
): Promise<UiWorld> {
  const directory = await mkdtemp(join(tmpdir(), 'toolbus-web-'));
  const mail = await startMailApi(directory);
  const research = await startResearchWorld({ delayMs: 400 });
  const toolResults: string[] = [];
  const model = await startScriptedModelServer({
    handler: modelHandler({ chunkMs: options.chunkMs ?? 20, mailPort: () => mail.port, toolResults }),
  });
  const storage = await openStorage({
    path: join(directory, 'toolbus.db'),
    secretKey: Buffer.alloc(32, 9),
    environment: {},
  });
  const persona = await storage.personas.create({
    name: 'default',
    description: 'Everything the tests need',
  });
  for (const id of [
    'SearchTool',
    'OpenURLTool',
    'PythonTool',
    'ResearchAgentTool',
    'CitationCheckTool',
    'FloodTool',
    'LongRunTool',
  ]) {
    await storage.personas.addToolRow(persona.id, { kind: 'built-in', builtInId: id });
  }
  const researcher = await storage.personas.create({
    name: 'Researcher',
    description: 'Searches the web for Deep Research',
  });
  for (const id of ['ResearchWebSearchTool', 'ResearchOpenUrlTool']) {
    await storage.personas.addToolRow(researcher.id, { kind: 'built-in', builtInId: id });
  }
  const hold = new ToolHold();
  const tools = testTools({ stepMs: options.stepMs ?? 1200, hold });
  const [researchSearch, researchOpen] = research.tools;
  if (researchSearch) tools.set('ResearchWebSearchTool', () => researchSearch);
  if (researchOpen) tools.set('ResearchOpenUrlTool', () => researchOpen);
  const documentsFolder = join(directory, 'handbook');
  await mkdir(documentsFolder);
  await writeFile(join(documentsFolder, 'refunds.md'), '# Refunds\n\nRefunds take 14 days.\n');
  await writeFile(join(documentsFolder, 'returns.md'), '# Returns\n\nReturns are accepted within 30 days.\n');
  const server = await createServer({
    storage,
    auth: 'api-keys',
    defaultModel: `openai-compatible:${model.url}/v1#scripted`,
    allowedModels: [RESEARCH_MODEL],
    resolveModel: (name) =>
      name === RESEARCH_MODEL ? research.model('openai') : resolveLanguageModel(name, { env: {} }),
    contextWindowTokens: 128_000,
    webRoot,
    titleChats: true,
    ...omitUndefined({ fetch: options.fetch }),
    skills: {
      registry: await openSqliteSkillRegistry({ database: join(directory, 'skills.sqlite') }),
      blobStore: createFilesystemBlobStore({ directory: join(directory, 'blobs') }),
    },
    documentIndex: await openDocumentIndex({ path: join(directory, 'index.sqlite') }),
    documentRoots: [directory],
    limits: { requestsPerMinute: options.requestsPerMinute ?? 100_000 },
    builtInToolFactories: (context) => {
      const factories = new Map(tools);
      // As `toolbus serve` does: network through the egress proxy only when the user has connected apps, with the
      // turn's approvals (cards in the chat). `mail.test` is the one name that may reach loopback.
      factories.set('PythonTool', () =>
        pythonToolWithEgress({
          storage,
          context,
          caDirectory: join(directory, 'egress-ca'),
          network: {
            resolveHost: async (name) => {
              if (name === 'mail.test') return ['127.0.0.1'];
              throw new Error('ENOTFOUND');
            },
            addressPolicy: { level: 'strict', allow: ['mail.test'] },
            upstreamTrustedCa: [mail.certificatePem],
          },
        }),
      );
      return factories;
    },
  });
  const http: ListeningServer = await listen(server, { port: 0 });
  const bootstrap = await server.access.bootstrapAdmin('admin@example.com');
  if (!bootstrap) throw new Error('no admin key');
  return {
    url: http.url,
    adminKey: bootstrap.key,
    server,
    storage,
    model,
    documentsFolder,
    mail,
    toolResults,
    research,
    holdTools: () => hold.hold(),
    async close() {
      await http.close();
      await mail.close();
      await research.close();
      await storage.close();
      await model.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
