// A signed-in page of the built web app on a real toolbus server whose default persona holds every tool of one
// real MCP server on loopback (approved as listed), its model a scripted one over real HTTP: the world of the web
// tests about MCP tools in a turn (elicitation, set-aside tools, progress).
import assert from 'node:assert/strict';
import { createGuardedFetch } from '@toolbus/core/node';
import {
  type ScriptedModelServer,
  type ScriptedRequest,
  type ScriptedStep,
  startScriptedModelServer,
} from '@toolbus/core/testing';
import { createServer, type ListeningServer, listen, type ServerOptions } from '@toolbus/server';
import type { Storage } from '@toolbus/storage';
import { webRoot } from '@toolbus/web';
import type { Page } from 'playwright-core';
import { seedApprovedMcpServer } from '../../../packages/server/src/__fixtures__/approved-mcp-server.ts';
import { openTestStorage } from '../../../packages/server/src/__fixtures__/test-server.ts';
import { type BrowserProfile, openProfile } from './chromium.ts';
import { askInNewChat, signIn } from './page-steps.ts';

/** The scripted model's step: call the tool `toolFor` names, then say what it answered. */
function callThenReport(request: ScriptedRequest, toolFor: (message: string) => string): ScriptedStep[] {
  if (request.lastMessage?.role === 'tool') {
    return [{ type: 'text', text: `The tool said: ${request.lastMessage.toolResults[0]?.content ?? ''}` }];
  }
  const name = toolFor(request.lastMessage?.text ?? '');
  return [{ type: 'tool-call', id: `call_${name}`, name, arguments: {} }];
}

/** The running world. */
export interface McpChatPage {
  readonly page: Page;
  readonly storage: Storage;
  /** Opens a new chat, sends `question` and waits for its turn to show. */
  ask(question: string): Promise<void>;
  close(): Promise<void>;
}

export async function openMcpChatPage(options: {
  /** The MCP server's name and Streamable HTTP URL. */
  readonly mcp: { readonly name: string; readonly url: string };
  /**
   * The tool the scripted model calls (with no arguments) for the user's message; once the tool has answered, the
   * model's answer is `The tool said: <its result>`.
   */
  readonly toolFor: (message: string) => string;
  /** More options of the toolbus server (an MCP call timeout, …). */
  readonly server?: Partial<ServerOptions>;
}): Promise<McpChatPage> {
  const model: ScriptedModelServer = await startScriptedModelServer({
    handler: (request) => callThenReport(request, options.toolFor),
  });
  const { storage } = await openTestStorage();
  const persona = (await storage.personas.list()).find((item) => item.name === 'default');
  assert.ok(persona);
  const fetch = createGuardedFetch({ level: 'strict', allow: ['127.0.0.1'] }) as typeof globalThis.fetch;
  await seedApprovedMcpServer(storage, { ...options.mcp, personaId: persona.id, fetch });
  const server = await createServer({
    storage,
    auth: 'api-keys',
    defaultModel: `openai-compatible:${model.url}/v1#scripted`,
    defaultPersonaId: persona.id,
    fetch,
    webRoot,
    limits: { requestsPerMinute: 100_000 },
    ...options.server,
  });
  const http: ListeningServer = await listen(server, { port: 0 });
  const key = (await server.access.bootstrapAdmin('admin@example.com'))?.key ?? '';
  const profile: BrowserProfile = await openProfile();
  const page = profile.page;
  await signIn(page, http.url, key);
  return {
    page,
    storage,
    ask: (question) => askInNewChat(page, question),
    async close() {
      await profile.close();
      await http.close();
      await storage.close();
      await model.close();
    },
  };
}
