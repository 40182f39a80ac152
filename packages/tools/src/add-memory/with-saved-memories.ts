import type { MemoryStore, User } from '@toolbus/storage';
import { renderMemoriesForPrompt } from './render-memories-for-prompt.ts';

/** Options for {@link withSavedMemories}. */
export interface WithSavedMemoriesOptions {
  /** The system prompt the memories are appended to. */
  readonly prompt: string;
  readonly memories: Pick<MemoryStore, 'list'>;
  /** Whose memories; nothing is added unless they have memory on. */
  readonly user: Pick<User, 'id' | 'settings'>;
  /** The organisation the chat runs in (default the default one): another organisation's memories never show. */
  readonly organizationId?: string;
}

/**
 * A chat's system prompt with the user's saved memories appended (see {@link renderMemoriesForPrompt}), when the
 * user has memory on and has saved some in this organisation; the prompt unchanged otherwise. The CLI's chats and
 * the server's turns build their prompt with this one function.
 */
export async function withSavedMemories(options: WithSavedMemoriesOptions): Promise<string> {
  if (!options.user.settings.memoryToolEnabled) return options.prompt;
  const section = renderMemoriesForPrompt(
    await options.memories.list(options.user.id, options.organizationId),
  );
  return section ? `${options.prompt}\n\n${section}` : options.prompt;
}
