import { StorageError } from '../storage-error.ts';

/** The title of a chat created without one. */
export const defaultChatTitle = 'New chat';

const maxTitleLength = 200;

/** A chat title trimmed; `invalid_input` unless it has 1 to 200 characters. */
export function checkChatTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed.length === 0 || trimmed.length > maxTitleLength) {
    throw new StorageError({
      code: 'invalid_input',
      message: `A chat title must have 1 to ${maxTitleLength} characters.`,
    });
  }
  return trimmed;
}
