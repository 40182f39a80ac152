import { type StreamModelStepOptions, streamModelStep } from '@toolbus/core';
import type { ChatMessage } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { memoryDecisionMessages } from './memory-decision-prompt.ts';
import { type MemoryDecision, parseMemoryDecision } from './parse-memory-decision.ts';

/** The decision taken, and why the model's answer was not used when it fell back to adding. */
export interface MemoryOperation {
  readonly decision: MemoryDecision;
  /** Set when the decision is the fallback (add the memory as written). */
  readonly fallbackReason?: string;
}

/**
 * Asks the model, in one tool-free step, whether `newMemory` adds a fact or updates an existing memory. Any
 * failure (a model error, an empty or unreadable answer, a bad id) falls back to adding the memory as written, with
 * the reason kept. An abort is not a failure: it is rethrown, so nothing is written for a cancelled call.
 */
export async function decideMemoryOperation(options: {
  readonly model: StreamModelStepOptions['model'];
  readonly memories: readonly { readonly text: string }[];
  readonly history: readonly ChatMessage[];
  readonly userQuery: string;
  readonly userName?: string;
  readonly newMemory: string;
  readonly recentMessageCount: number;
  readonly maxMemoryChars: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}): Promise<MemoryOperation> {
  const fallback = (reason: string): MemoryOperation => ({
    decision: { operation: 'add', text: options.newMemory },
    fallbackReason: reason,
  });
  const messages = memoryDecisionMessages({
    memories: options.memories,
    recentUserMessages: recentUserMessages(options),
    ...omitUndefined({ userName: options.userName || undefined }),
    newMemory: options.newMemory,
  });
  let answer = '';
  for await (const event of streamModelStep({
    model: options.model,
    messages,
    signal: options.signal,
    temperature: 0,
    maxOutputTokens: 400,
    firstChunkTimeoutMs: options.timeoutMs,
    chunkTimeoutMs: options.timeoutMs,
    maxRetriesBeforeFirstChunk: 1,
  })) {
    if (event.type === 'text-delta') answer += event.text;
    else if (event.type === 'error') {
      options.signal.throwIfAborted();
      return fallback(`the model call failed (${event.error.code})`);
    }
  }
  options.signal.throwIfAborted();
  if (answer.trim() === '') return fallback('the model gave an empty answer');
  const parsed = parseMemoryDecision({
    answer,
    memoryCount: options.memories.length,
    originalMemory: options.newMemory,
    maxMemoryChars: options.maxMemoryChars,
  });
  return parsed.ok ? { decision: parsed.decision } : fallback(parsed.reason);
}

/** The user's last messages, the current question included even when the history does not hold it yet. */
function recentUserMessages(options: {
  readonly history: readonly ChatMessage[];
  readonly userQuery: string;
  readonly recentMessageCount: number;
}): string[] {
  const messages = options.history.flatMap((message) => (message.role === 'user' ? [message.content] : []));
  if (options.userQuery !== '' && messages.at(-1) !== options.userQuery) messages.push(options.userQuery);
  return options.recentMessageCount > 0 ? messages.slice(-options.recentMessageCount) : [];
}
