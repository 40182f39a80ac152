import type { StreamModelStepOptions } from '@toolbus/core';
import { defineTool } from '@toolbus/core';
import type { Tool } from '@toolbus/spec';
import { omitUndefined, ToolExecutionError } from '@toolbus/spec';
import * as z from 'zod';
import type { AddMemoryStorage, StoredMemory } from './add-memory-storage.ts';
import { decideMemoryOperation } from './decide-memory-operation.ts';
import { flattenText } from './flatten-text.ts';

/** Options for {@link createAddMemoryTool}. */
export interface AddMemoryToolOptions {
  /** Where memories live (`@toolbus/storage`'s `Storage` fits). */
  readonly storage: AddMemoryStorage;
  /** The model that decides between add and update (an AI SDK language model, e.g. from `resolveLanguageModel`). */
  readonly model: StreamModelStepOptions['model'];
  /**
   * The organisation the turn runs in (the server's): memories are read, capped and saved there only, so a user's
   * memories never cross organisations. Absent: the storage's default organisation.
   */
  readonly organizationId?: string;
  /**
   * Adding past this many deletes the user's oldest memory first. Default 10: every memory goes into every prompt
   * of the user's chats, so the list stays short.
   */
  readonly maxMemoriesPerUser?: number;
  /** The user's last messages the decision sees. Default 3. */
  readonly recentMessageCount?: number;
  /** The longest memory accepted, from the chat model and from the decision. Default 1,000 characters. */
  readonly maxMemoryChars?: number;
  /** Longest wait for the decision's first chunk and between chunks. Default 30 s. */
  readonly decisionTimeoutMs?: number;
}

/**
 * `add_memory`: saves a fact about the user for later chats. One tool-free model step, shown the user's existing
 * memories (numbered) and recent messages, decides whether the fact is new or updates an existing memory; the
 * tool writes it (add, or update in place), emits `memory-delta`, and tells the model what was saved. An unusable
 * decision falls back to adding the memory as written, and the result says so. It refuses without a known user
 * (fail closed) and in incognito chats (`extras.incognito === true`). Calls in one cycle run one at a time, so
 * each decision sees the previous write. Later chats get the memories through `renderMemoriesForPrompt`.
 */
export function createAddMemoryTool(options: AddMemoryToolOptions): Tool {
  const { storage, model, organizationId } = options;
  const maxPerUser = options.maxMemoriesPerUser ?? 10;
  const maxMemoryChars = options.maxMemoryChars ?? 1000;
  return defineTool({
    name: 'add_memory',
    displayName: 'Memory',
    description:
      'Save a lasting fact about the user (a preference, their role, a project) so later chats can use it. Call it ' +
      'when the user asks you to remember something or states a durable preference; not for one-off details.',
    parameters: z.object({
      memory: z
        .string()
        .trim()
        .min(1)
        .max(maxMemoryChars)
        .describe('One concise standalone statement, e.g. "User prefers dark mode"'),
    }),
    exampleArguments: { memory: 'User prefers answers in metric units' },
    concurrency: 'serial',
    async run({ memory }, context) {
      const userId = context.userId;
      if (userId === undefined) {
        throw new ToolExecutionError({
          code: 'memory_user_unknown',
          message:
            'Error: memories can only be saved for a signed-in user, and this chat has none. Tell the user their request was not saved.',
        });
      }
      if (context.extras.incognito === true) {
        throw new ToolExecutionError({
          code: 'memory_incognito',
          message:
            'Error: memories cannot be saved from an incognito chat. Tell the user their request was not saved.',
        });
      }
      const newMemory = flattenText(memory);
      const existing = await storage.memories.list(userId, organizationId);
      const user = await storage.users?.get(userId);
      const { decision, fallbackReason } = await decideMemoryOperation({
        model,
        memories: existing,
        history: context.history,
        userQuery: context.userQuery,
        ...omitUndefined({ userName: user?.name || undefined }),
        newMemory,
        recentMessageCount: options.recentMessageCount ?? 3,
        maxMemoryChars,
        timeoutMs: options.decisionTimeoutMs ?? 30_000,
        signal: context.signal,
      });
      const text = flattenText(decision.text);
      let saved: StoredMemory;
      const notes: string[] = [];
      if (decision.operation === 'update') {
        const replaced = existing[decision.index];
        if (replaced === undefined) throw new Error('unreachable: the decision index was checked');
        saved = await storage.memories.update(replaced.id, text);
        notes.push(`It replaces: ${flattenText(replaced.text)}`);
      } else {
        if (existing.length >= maxPerUser) {
          notes.push(`The oldest memory was removed to stay within ${maxPerUser} memories.`);
        }
        saved = await storage.memories.add(omitUndefined({ userId, organizationId, text, maxPerUser }));
      }
      if (fallbackReason !== undefined) {
        notes.push(
          `The memory model's answer could not be used (${fallbackReason}), so it was saved as a new memory.`,
        );
      }
      context.emitter.emit({
        type: 'memory-delta',
        toolCallId: context.call.id,
        operation: decision.operation,
        memoryId: saved.id,
        text: saved.text,
      });
      const headline = decision.operation === 'update' ? 'Memory updated' : 'New memory added';
      return {
        llmFacing: [`${headline}: ${saved.text}`, ...notes].join('\n'),
        rich: { type: 'memory', operation: decision.operation, memoryId: saved.id, text: saved.text },
      };
    },
  });
}
