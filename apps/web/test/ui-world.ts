// A whole toolbus deployment for the browser tests and the benchmark, on loopback: a scripted model server
// (OpenAI wire format), a real toolbus server (api-keys auth, the built web app at /), real run_python in the
// in-process bubblewrap sandbox, and test tools that stream real packets through the runner (parallel searches,
// sub-agents that place their own tools one level deeper), and a loopback HTTPS "mail API" that run_python reaches
// only through the egress proxy once the user has connected it as an app.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuiltInToolFactory } from '@toolbus/assembly';
import { defineTool, resolveLanguageModel } from '@toolbus/core';
import {
  chunkText,
  type ScriptedModelServer,
  type ScriptedRequest,
  type ScriptedStep,
  startScriptedModelServer,
} from '@toolbus/core/testing';
import { createLeafCertificateCache, loadOrCreateCertificateAuthority } from '@toolbus/egress/node';
import { startInterpreterServer } from '@toolbus/interpreter';
import { type ResearchWorld, startResearchWorld } from '@toolbus/research/testing';
import { CodeInterpreterClient } from '@toolbus/sandbox';
import {
  createServer,
  type ListeningServer,
  listen,
  startSandboxEgressIfConnected,
  type ToolbusServer,
} from '@toolbus/server';
import { createFilesystemBlobStore, createSqliteSkillRegistry } from '@toolbus/skills';
import {
  omitUndefined,
  type PacketObject,
  type SearchDocument,
  type ToolEmitter,
  ToolExecutionError,
} from '@toolbus/spec';
import { openStorage, type Storage } from '@toolbus/storage';
import { createPythonTool, openDocumentIndex } from '@toolbus/tools';
import { webRoot } from '@toolbus/web';
import { z } from 'zod';
import { TITLE_INSTRUCTION } from '../../../packages/server/src/chats/chat-titles.ts';

/** The loopback HTTPS API the sandbox reaches through the egress proxy, with its own test CA. */
export interface MailApi {
  readonly port: number;
  readonly certificatePem: string;
  /** Each request's method, path and Authorization header, as received. */
  readonly received: { method: string; path: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

async function startMailApi(directory: string): Promise<MailApi> {
  const authority = await loadOrCreateCertificateAuthority({ directory: join(directory, 'mail-ca') });
  const leaves = createLeafCertificateCache(authority);
  const received: MailApi['received'] = [];
  const server = createHttpsServer(
    {
      SNICallback: (name, callback) => {
        leaves.secureContextFor(name).then(
          (context) => callback(null, context),
          (error: Error) => callback(error),
        );
      },
    },
    (request, response) => {
      request.resume();
      request.on('end', () => {
        received.push({
          method: request.method ?? '',
          path: request.url ?? '',
          authorization: request.headers.authorization,
        });
        response.writeHead(202, { 'content-type': 'application/json' });
        response.end('{"queued":true}');
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    certificatePem: authority.certificatePem,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

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
  close(): Promise<void>;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason ?? new Error('aborted'));
      },
      { once: true },
    );
  });

function documentsFor(topic: string, count: number): SearchDocument[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `${topic}-${index + 1}`,
    title: `${topic} handbook, part ${index + 1}`,
    link: `https://docs.example.com/${topic}/${index + 1}`,
    blurb: `What the ${topic} handbook says in part ${index + 1}.`,
    content: `${topic} facts, part ${index + 1}: refunds take 14 days.`,
    sourceType: 'web',
  }));
}

/** Emits `objects` one level below `emitter` at (turn, tab) of the nested loop. */
function emitNested(emitter: ToolEmitter, turn: number, tab: number, objects: readonly PacketObject[]) {
  const nested = emitter.nested({ turn, tab });
  for (const obj of objects) nested.emit(obj);
}

function testTools(options: { readonly stepMs: number }): Map<string, BuiltInToolFactory> {
  const search = defineTool({
    name: 'search_docs',
    displayName: 'Search the handbook',
    description: 'Searches the handbook.',
    parameters: z.object({ query: z.string() }),
    run: async ({ query }, context) => {
      context.emitter.emit({
        type: 'search-queries',
        toolCallId: context.call.id,
        queries: [query, `${query} policy`],
      });
      await sleep(options.stepMs, context.signal);
      const documents = context.citations.assign(documentsFor('refunds', 2));
      context.emitter.emit({ type: 'search-documents', toolCallId: context.call.id, documents });
      return {
        llmFacing: documents.map((d) => `[${d.citationNumber}] ${d.content}`).join('\n'),
        rich: { type: 'documents', documents },
      };
    },
  });
  const openPage = defineTool({
    name: 'open_page',
    displayName: 'Open a page',
    description: 'Opens a web page.',
    parameters: z.object({ url: z.string() }),
    run: async ({ url }, context) => {
      context.emitter.emit({ type: 'open-url-urls', toolCallId: context.call.id, urls: [url] });
      await sleep(options.stepMs, context.signal);
      const documents = context.citations.assign([
        {
          id: url,
          title: 'Returns page',
          link: url,
          blurb: 'The store returns page.',
          content: 'Returns within 30 days.',
          sourceType: 'url',
        },
      ]);
      context.emitter.emit({ type: 'search-documents', toolCallId: context.call.id, documents });
      return {
        llmFacing: `[${documents[0]?.citationNumber}] Returns within 30 days.`,
        rich: { type: 'documents', documents },
      };
    },
  });
  const researchAgent = defineTool({
    name: 'research_agent',
    displayName: 'Research agent',
    description: 'Researches one task with its own tools.',
    parameters: z.object({ task: z.string(), fail: z.boolean().optional() }),
    emitStart: (_placement, emitter, call) => {
      emitter.emit({
        type: 'tool-start',
        toolCallId: call.id,
        toolName: 'research_agent',
        displayName: 'Research agent',
      });
      emitter.emit({ type: 'research-agent-start', task: String(call.arguments.task) });
    },
    run: async ({ task, fail }, context) => {
      const id = context.call.id;
      // Step 0: two parallel searches of the agent's own (tabs 0 and 1 one level down).
      emitNested(context.emitter, 0, 0, [
        { type: 'tool-start', toolCallId: `${id}-s0`, toolName: 'web_search', displayName: 'Web search' },
        { type: 'search-queries', toolCallId: `${id}-s0`, queries: [`${task} overview`] },
      ]);
      emitNested(context.emitter, 0, 1, [
        { type: 'tool-start', toolCallId: `${id}-s1`, toolName: 'open_url', displayName: 'Open URL' },
        {
          type: 'open-url-urls',
          toolCallId: `${id}-s1`,
          urls: [`https://example.org/${encodeURIComponent(task)}`],
        },
      ]);
      await sleep(options.stepMs, context.signal);
      if (fail) {
        throw new ToolExecutionError({
          code: 'research_agent_failed',
          message: `The search backend refused the task "${task}".`,
          emitErrorPacket: true,
        });
      }
      const documents = context.citations.assign(documentsFor(task.split(' ')[0] ?? 'topic', 1));
      emitNested(context.emitter, 0, 0, [
        { type: 'search-documents', toolCallId: `${id}-s0`, documents },
        { type: 'section-end' },
      ]);
      emitNested(context.emitter, 0, 1, [{ type: 'section-end' }]);
      context.emitter.emit({ type: 'intermediate-report-start' });
      for (const piece of chunkText(`Findings on ${task}: it holds [${documents[0]?.citationNumber}].`, 3)) {
        context.emitter.emit({ type: 'intermediate-report-delta', content: piece });
      }
      context.emitter.emit({ type: 'intermediate-report-cited-documents', documents });
      return {
        llmFacing: `Report on ${task} citing [${documents[0]?.citationNumber}]`,
        rich: { type: 'documents', documents },
      };
    },
  });
  const checkCitations = defineTool({
    name: 'check_citations',
    displayName: 'Check citations',
    description: 'Checks which report sentences their sources support.',
    parameters: z.object({ report: z.string() }),
    run: async (_args, context) => {
      context.emitter.emit({
        type: 'citation-check',
        checks: [
          { citationNumber: 1, sentence: 'History holds.', verdict: 'supported', method: 'lexical' },
          {
            citationNumber: 2,
            sentence: 'Markets doubled last year.',
            verdict: 'unsupported',
            method: 'model',
          },
        ],
      } as unknown as PacketObject);
      return 'checked';
    },
  });
  const flood = defineTool({
    name: 'flood',
    displayName: 'Flood',
    description: 'Streams many packets: its own sub-agent steps, each with two parallel tools, and a report.',
    parameters: z.object({ packets: z.number().int() }),
    emitStart: (_placement, emitter, call) => {
      emitter.emit({ type: 'tool-start', toolCallId: call.id, toolName: 'flood', displayName: 'Flood' });
      emitter.emit({ type: 'research-agent-start', task: `flood ${call.id}` });
    },
    run: async ({ packets }, context) => {
      const id = context.call.id;
      let sent = 2;
      let step = 0;
      while (sent < packets - 4) {
        for (const tab of [0, 1]) {
          const at = context.emitter.nested({ turn: step, tab });
          const toolCallId = `${id}-${step}-${tab}`;
          at.emit({ type: 'tool-start', toolCallId, toolName: 'run_python', displayName: 'Code' });
          sent += 1;
          for (let line = 0; line < 24 && sent < packets - 5; line += 1) {
            at.emit({
              type: 'python-delta',
              toolCallId,
              stdout: `step ${step} tab ${tab} line ${line}: ${'x'.repeat(40)}\n`,
            });
            sent += 1;
          }
          at.emit({ type: 'section-end' });
          sent += 1;
        }
        step += 1;
        // Let the stream breathe, as a real agent's steps would.
        await sleep(1, context.signal);
      }
      context.emitter.emit({ type: 'intermediate-report-start' });
      context.emitter.emit({
        type: 'intermediate-report-delta',
        content: `Flood ${id} done after ${step} steps.`,
      });
      return `flooded ${sent + 2} packets`;
    },
  });
  const factories = new Map<string, BuiltInToolFactory>();
  factories.set('FloodTool', () => flood);
  factories.set('SearchTool', () => search);
  factories.set('OpenURLTool', () => openPage);
  factories.set('ResearchAgentTool', () => researchAgent);
  factories.set('CitationCheckTool', () => checkCitations);
  return factories;
}

function lastUserText(request: ScriptedRequest): string {
  for (let index = request.messages.length - 1; index >= 0; index -= 1) {
    const message = request.messages[index];
    if (message?.role === 'user') return message.text ?? '';
  }
  return '';
}

function answer(text: string, delayMs: number): ScriptedStep[] {
  return chunkText(text, 8).flatMap((piece) => [
    { type: 'delay', ms: delayMs } as const,
    { type: 'text', text: piece } as const,
  ]);
}

/** The scripted model: what it does depends on a keyword in the user's message. */
function modelHandler(options: {
  readonly chunkMs: number;
  readonly mailPort: () => number;
  readonly toolResults: string[];
}) {
  return (request: ScriptedRequest): ScriptedStep[] => {
    // The server's title request after a chat's first answer: a short title from the question's first words.
    if (request.messages.some((message) => message.role === 'system' && message.text === TITLE_INSTRUCTION)) {
      const words = /User: (.*)/.exec(lastUserText(request))?.[1]?.split(/\s+/).slice(0, 3) ?? [];
      return [{ type: 'text', text: `"Topic: ${words.join(' ')}".` }];
    }
    const question = lastUserText(request);
    const afterTools = request.messages.at(-1)?.role === 'tool';
    if (question.includes('parallel')) {
      if (!afterTools) {
        return [
          { type: 'text', text: 'Checking two sources at once. ' },
          { type: 'tool-call', id: 'call_search', name: 'search_docs', arguments: { query: 'refund time' } },
          {
            type: 'tool-call',
            id: 'call_open',
            name: 'open_page',
            arguments: { url: 'https://shop.example.com/returns' },
          },
        ];
      }
      return answer(
        'Refunds take **14 days** [1], and returns are accepted within 30 days [3].',
        options.chunkMs,
      );
    }
    if (question.includes('twice')) {
      if (!afterTools) {
        return [
          { type: 'tool-call', id: 'call_s_a', name: 'search_docs', arguments: { query: 'refund time' } },
          { type: 'tool-call', id: 'call_s_b', name: 'search_docs', arguments: { query: 'return window' } },
        ];
      }
      return answer('Both searches agree: refunds take 14 days [1].', options.chunkMs);
    }
    if (question.includes('recovered')) {
      if (!afterTools) {
        return [
          {
            type: 'text',
            text: 'Let me search. <tool_call>{"name": "search_docs", "arguments": {"query": "refunds"}}</tool_call>',
          },
        ];
      }
      return answer('Found it: refunds take 14 days [1].', options.chunkMs);
    }
    if (question.includes('divide')) {
      if (!afterTools) {
        const code = "print('about to divide')\nprint(1 / 0)";
        return [{ type: 'tool-call', id: 'call_div', name: 'run_python', arguments: { code } }];
      }
      return answer('The division failed: you cannot divide by zero.', options.chunkMs);
    }
    if (question.includes('plot')) {
      if (!afterTools) {
        const code = [
          'import matplotlib',
          "matplotlib.use('Agg')",
          'import matplotlib.pyplot as plt',
          'plt.plot([1, 2, 3], [2, 4, 8])',
          "plt.title('Growth')",
          "plt.savefig('growth.png')",
          "print('saved growth.png')",
        ].join('\n');
        return [{ type: 'tool-call', id: 'call_py', name: 'run_python', arguments: { code } }];
      }
      return answer('Here is the plot of the growth.', options.chunkMs);
    }
    if (question.includes('research')) {
      const last = request.messages.at(-1);
      const toolTurns = request.messages.filter((message) => message.role === 'tool').length;
      if (!afterTools) {
        return [
          { type: 'text', text: '' },
          {
            type: 'tool-call',
            id: 'agent_a',
            name: 'research_agent',
            arguments: { task: 'history of refunds' },
          },
          {
            type: 'tool-call',
            id: 'agent_b',
            name: 'research_agent',
            arguments: { task: 'markets for returns' },
          },
          {
            type: 'tool-call',
            id: 'agent_c',
            name: 'research_agent',
            arguments: { task: 'laws on refunds', fail: true },
          },
        ];
      }
      if (toolTurns === 3 && last?.role === 'tool') {
        return [{ type: 'tool-call', id: 'check', name: 'check_citations', arguments: { report: 'draft' } }];
      }
      return answer('# Report\n\nHistory holds [1]. Markets doubled last year [2].', options.chunkMs);
    }
    if (question.includes('mail')) {
      const last = request.messages.at(-1);
      if (!afterTools) {
        const code = [
          'import json, urllib.request, urllib.error',
          `request = urllib.request.Request("https://mail.test:${options.mailPort()}/v1/messages", method="POST",`,
          '    data=json.dumps({"to": "ceo@example.com", "subject": "Q3 numbers"}).encode(),',
          '    headers={"content-type": "application/json"})',
          'try:',
          '    with urllib.request.urlopen(request, timeout=60) as response:',
          '        print("STATUS", response.status)',
          'except urllib.error.HTTPError as error:',
          '    print("STATUS", error.code, error.read().decode())',
        ].join('\n');
        return [{ type: 'tool-call', id: 'call_mail', name: 'run_python', arguments: { code } }];
      }
      const result = last?.toolResults[0]?.content ?? '';
      options.toolResults.push(result);
      const status = /STATUS (\d+)/.exec(result)?.[1] ?? 'nothing';
      return answer(`The mail API answered ${status}.`, options.chunkMs);
    }
    const flood = /flood (\d+)/.exec(question);
    if (flood) {
      if (!afterTools) {
        return [0, 1, 2, 3].map((index) => ({
          type: 'tool-call' as const,
          id: `flood_${index}`,
          name: 'flood',
          arguments: { packets: Number(flood[1]) },
        }));
      }
      return chunkText(`${'The flood is over, every lane reported. '.repeat(40)}`, 4).map((text) => ({
        type: 'text' as const,
        text,
      }));
    }
    if (question.includes('table and code')) {
      return answer(
        [
          'Here is the comparison:',
          '',
          '| Policy | Days |',
          '| --- | ---: |',
          '| Refund | 14 |',
          '| Return | 30 |',
          '',
          '```python',
          'def refund_days(policy):',
          "    return {'refund': 14, 'return': 30}[policy]",
          '```',
        ].join('\n'),
        options.chunkMs,
      );
    }
    if (question.includes('slow')) {
      return answer(`${'This is a long answer that streams slowly. '.repeat(12)}The end.`, 120);
    }
    return answer('Hello! Ask me something.', options.chunkMs);
  };
}

/** Starts the world; `close` stops every server and removes the data folder. */
export async function startUiWorld(
  options: {
    readonly stepMs?: number;
    readonly chunkMs?: number;
    /** The server's fetch for MCP servers and OpenAPI documents (default: the strict guarded one). */
    readonly fetch?: typeof fetch;
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
  const tools = testTools({ stepMs: options.stepMs ?? 1200 });
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
    ...(options.fetch ? { fetch: options.fetch } : {}),
    skills: {
      registry: createSqliteSkillRegistry({ database: join(directory, 'skills.sqlite') }),
      blobStore: createFilesystemBlobStore({ directory: join(directory, 'blobs') }),
    },
    documentIndex: openDocumentIndex({ path: join(directory, 'index.sqlite') }),
    documentRoots: [directory],
    limits: { requestsPerMinute: 100_000 },
    builtInToolFactories: (context) => {
      const factories = new Map(tools);
      factories.set('PythonTool', async () => {
        // As `toolbus serve` does: network through the egress proxy only when the user has connected apps, with
        // the turn's approvals (cards in the chat). `mail.test` is the one name that may reach loopback.
        const egress =
          context.approvals === undefined
            ? undefined
            : await startSandboxEgressIfConnected({
                storage,
                userId: context.user.id,
                caDirectory: join(directory, 'egress-ca'),
                approvals: context.approvals,
                sessionId: context.approvals.sessionId,
                network: {
                  resolveHost: async (name) => {
                    if (name === 'mail.test') return ['127.0.0.1'];
                    throw new Error('ENOTFOUND');
                  },
                  addressPolicy: { level: 'strict', allow: ['mail.test'] },
                  upstreamTrustedCa: [mail.certificatePem],
                },
              });
        const interpreter = await startInterpreterServer({
          port: 0,
          ...omitUndefined({ egress: egress?.provider }),
        });
        context.onClose(async () => {
          await interpreter.close();
          await egress?.close();
        });
        return createPythonTool({
          client: new CodeInterpreterClient({ baseUrl: interpreter.url }),
          files: {
            readContent: (fileId) => storage.files.readContent(fileId),
            saveGenerated: (file) =>
              storage.files.put({ userId: context.user.id, organizationId: context.organizationId, ...file }),
          },
        });
      });
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
