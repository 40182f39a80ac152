import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuiltInToolFactory } from '@toolbus/assembly';
import { defineTool } from '@toolbus/core';
import {
  chunkText,
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  type ScriptedRequest,
  type ScriptedStep,
  startScriptedModelServer,
} from '@toolbus/core/testing';
import { openStorage, type Storage } from '@toolbus/storage';
import { z } from 'zod';
import { createServer } from '../create-server.ts';
import type { ServerOptions } from '../server-options.ts';
import { type ListeningServer, listen } from '../listen.ts';

/** A fresh storage in a temporary directory, with a `default` persona offering the `lookup` test tool. */
export async function openTestStorage(path?: string): Promise<{ storage: Storage; path: string }> {
  const databasePath = path ?? join(await mkdtemp(join(tmpdir(), 'toolbus-server-')), 'toolbus.db');
  const storage = await openStorage({ path: databasePath, secretKey: Buffer.alloc(32, 3), environment: {} });
  if ((await storage.personas.list()).length === 0) {
    const persona = await storage.personas.create({ name: 'default', description: 'test persona' });
    await storage.personas.addToolRow(persona.id, { kind: 'built-in', builtInId: 'SearchTool' });
  }
  return { storage, path: databasePath };
}

/** {@link openTestStorage} with one user in it, for tests that drive the turn runner without a server. */
export async function openTestStorageWithUser(): Promise<{ storage: Storage; userId: string }> {
  const { storage } = await openTestStorage();
  return { storage, userId: (await storage.users.create({ email: 'ada@example.com' })).id };
}

/** A running server on a fresh storage whose default model is a scripted one, with its parts for tests. */
export interface ScriptedTestServer {
  readonly model: ScriptedModelServer;
  readonly storage: Storage;
  readonly http: ListeningServer;
  /** Creates a chat (local auth) and returns its id. */
  newChat(): Promise<string>;
  /** Sends `content` in a new chat (local auth) and reads the whole turn: its packets as they arrived. */
  runTurn(content: string): Promise<{ readonly chatId: string; readonly packets: readonly TurnPacket[] }>;
  close(): Promise<void>;
}

/** A packet as a turn's SSE stream carries it. */
export interface TurnPacket {
  readonly placement: { readonly turn: number; readonly tab: number; readonly path?: unknown[] };
  readonly obj: { readonly type: string; readonly [key: string]: unknown };
}

/**
 * The server most route tests need: a scripted model answering by `handler`, a fresh storage and local auth,
 * listening on a free loopback port.
 */
export async function startScriptedTestServer(options: {
  readonly handler: NonNullable<ScriptedModelServerOptions['handler']>;
  readonly toolFactories: () => ReadonlyMap<string, BuiltInToolFactory>;
  /** Rows the test needs in storage before the server starts (personas' tool rows, MCP servers). */
  readonly seed?: (storage: Storage) => Promise<void>;
  /** Server options beyond the defaults (a logger, the fetch MCP and OpenAPI tools use). */
  readonly server?: Partial<Omit<ServerOptions, 'storage' | 'defaultModel' | 'auth'>>;
}): Promise<ScriptedTestServer> {
  const model = await startScriptedModelServer({ handler: options.handler });
  const { storage } = await openTestStorage();
  await options.seed?.(storage);
  const server = await createServer({
    ...options.server,
    storage,
    auth: 'local',
    defaultModel: `openai-compatible:${model.url}/v1#scripted`,
    builtInToolFactories: options.toolFactories,
  });
  const http = await listen(server, { port: 0 });
  const post = (path: string, body: unknown) =>
    fetch(`${http.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const newChat = async () => ((await (await post('/v1/chats', {})).json()) as { id: string }).id;
  return {
    model,
    storage,
    http,
    newChat,
    async runTurn(content) {
      const chatId = await newChat();
      const events = await readSse(await post(`/v1/chats/${chatId}/messages`, { content }));
      return { chatId, packets: events.map((event) => JSON.parse(event.data) as TurnPacket) };
    },
    async close() {
      await http.close();
      await storage.close();
      await model.close();
    },
  };
}

// Defined once, so the tool each turn makes reuses its JSON schema.
const lookupParameters = z.object({ query: z.string() });

/**
 * The `lookup` tool, standing in for internal search under the `SearchTool` id: it answers a fixed fact after
 * `delayMs` (abortable), so tests can stop or kill a turn while it runs.
 */
export function lookupToolFactories(options: { delayMs?: number } = {}): Map<string, BuiltInToolFactory> {
  const tool = defineTool({
    name: 'lookup',
    description: 'Looks a fact up.',
    parameters: lookupParameters,
    run: async ({ query }, context) => {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, options.delayMs ?? 0);
        context.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            reject(context.signal.reason ?? new Error('aborted'));
          },
          { once: true },
        );
      });
      return `Fact about ${query}: refunds take 14 days.`;
    },
  });
  return new Map([['SearchTool', () => tool]]);
}

/**
 * A scripted model: asked with tools, it narrates and calls `lookup`; shown the result, it answers in small
 * chunks, `chunkDelayMs` apart.
 */
export function lookupThenAnswer(options: { answer?: string; chunkDelayMs?: number } = {}) {
  let calls = 0;
  return (request: ScriptedRequest): ScriptedStep[] => {
    const last = request.messages.at(-1);
    if (last?.role !== 'tool' && request.toolNames.includes('lookup')) {
      calls += 1;
      return [
        { type: 'text', text: 'Let me look that up. ' },
        { type: 'tool-call', id: `call_${calls}`, name: 'lookup', arguments: { query: last?.text ?? '' } },
      ];
    }
    const steps: ScriptedStep[] = [];
    for (const piece of chunkText(options.answer ?? 'Refunds take fourteen days after the return arrives.', 6)) {
      if (options.chunkDelayMs) steps.push({ type: 'delay', ms: options.chunkDelayMs });
      steps.push({ type: 'text', text: piece });
    }
    return steps;
  };
}

/** One Server-Sent Event as parsed. */
export interface SseEvent {
  readonly id: string | undefined;
  readonly event: string | undefined;
  readonly data: string;
}

/** Reads SSE events from a response body; `onEvent` may return `false` to stop reading (closing the connection). */
export async function readSse(
  response: Response,
  onEvent?: (event: SseEvent, index: number) => boolean | undefined | void,
): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let boundary = buffer.indexOf('\n\n');
    while (boundary >= 0) {
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      boundary = buffer.indexOf('\n\n');
      let id: string | undefined;
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const [field, ...rest] = line.split(':');
        const value = rest.join(':').replace(/^ /, '');
        if (field === 'id') id = value;
        else if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length === 0) continue;
      const parsed = { id, event, data: data.join('\n') };
      events.push(parsed);
      if (onEvent?.(parsed, events.length - 1) === false) {
        await reader.cancel();
        return events;
      }
    }
  }
  return events;
}

/** Reads NDJSON lines (empty heartbeat lines skipped). */
export async function readNdjson(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Polls until `check` returns a value, for at most `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
