// Test helpers: the three provider packages (OpenAI chat, OpenAI-compatible, Anthropic) pointed at a scripted
// model server, and a collector for model streams.
import { after, before } from 'node:test';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ScriptedModelServer, ScriptedRequest, ScriptedStep, ScriptedTurn } from '../../testing/index.ts';
import { startScriptedModelServer } from '../../testing/index.ts';
import type { ModelStreamEvent } from '../model-stream-event.ts';
import { resolveLanguageModel } from '../resolve-language-model.ts';

/** The wire formats and provider packages the tests run against. */
export type ScriptedProviderName = 'openai' | 'openai-compatible' | 'anthropic';

/** Every provider package, so a test can run once per package. */
export const scriptedProviders: readonly ScriptedProviderName[] = ['openai', 'openai-compatible', 'anthropic'];

/** A real provider package talking to `serverUrl`. */
export function scriptedModel(options: { provider: ScriptedProviderName; serverUrl: string; apiKey?: string }): LanguageModelV4 {
  const baseUrl = `${options.serverUrl}/v1`;
  const key = options.apiKey ?? 'test-key';
  switch (options.provider) {
    case 'openai':
      return resolveLanguageModel({ provider: 'openai', model: 'gpt-test', baseUrl }, { env: { OPENAI_API_KEY: key } });
    case 'anthropic':
      return resolveLanguageModel(
        { provider: 'anthropic', model: 'claude-test', baseUrl },
        { env: { ANTHROPIC_API_KEY: key } },
      );
    case 'openai-compatible':
      return resolveLanguageModel(`openai-compatible:${baseUrl}#qwen-test`, { env: { TOOLBUS_API_KEY: key } });
  }
}

/** Reads a whole stream. */
export async function collectEvents(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The concatenated text deltas. */
export function textOf(events: readonly ModelStreamEvent[]): string {
  return events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('');
}

/** The concatenated reasoning deltas. */
export function reasoningOf(events: readonly ModelStreamEvent[]): string {
  return events.map((event) => (event.type === 'reasoning-delta' ? event.text : '')).join('');
}

/** The last event, which must be the terminal one. */
export function lastEvent(events: readonly ModelStreamEvent[]): ModelStreamEvent {
  const last = events.at(-1);
  if (last === undefined) throw new Error('no events');
  return last;
}

/** A scripted model server that answers requests with the queued turns, in order (see {@link useQueuedModelServer}). */
export interface QueuedModelServer {
  /** The answers still to give; a request past the last one gets a 418. */
  readonly turns: (ScriptedTurn | readonly ScriptedStep[])[];
  /** The running server (started before the suite's tests). */
  readonly server: () => ScriptedModelServer;
  /**
   * Queues `answers` in order and returns what the client sent for the second one: the follow-up request,
   * whose history a test checks.
   */
  queueWithFollowUp(...answers: ScriptedStep[][]): () => ScriptedRequest | undefined;
}

/** Starts a queued scripted model server for the enclosing `describe` (closed after it). */
export function useQueuedModelServer(): QueuedModelServer {
  let server: ScriptedModelServer | undefined;
  const turns: (ScriptedTurn | readonly ScriptedStep[])[] = [];
  before(async () => {
    server = await startScriptedModelServer({
      handler: () => turns.shift() ?? [{ type: 'http-error', status: 418, message: 'script exhausted' }],
    });
  });
  after(() => server?.close());
  return {
    turns,
    server: () => {
      if (server === undefined) throw new Error('the scripted server starts before the tests');
      return server;
    },
    queueWithFollowUp(...answers) {
      let followUp: ScriptedRequest | undefined;
      answers.forEach((steps, index) => {
        turns.push(
          index === 1
            ? {
                assert: (request) => {
                  followUp = request;
                },
                steps,
              }
            : steps,
        );
      });
      return () => followUp;
    },
  };
}
