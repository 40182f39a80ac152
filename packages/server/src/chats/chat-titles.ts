// A chat's title from its first exchange: at once a fallback from the first message (so the list never shows a
// column of "New chat"), then a short title the model writes after the first answer. A title the user set
// meanwhile is never overwritten.
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { WarningLogger } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';

/** The title a chat has before anyone titled it (the storage default, and what the web app creates chats with). */
export const UNTITLED_CHAT = 'New chat';

/** The instruction of the title request: a scripted model in tests recognises it by this text. */
export const TITLE_INSTRUCTION =
  'Write a title of at most six words for the conversation below. Answer with the title only: no quotes, no period.';

const maxTitleCharacters = 60;

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= maxTitleCharacters) return flat;
  const cut = flat.slice(0, maxTitleCharacters - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > 20 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** A title from the first message: its first line, shortened at a word. */
export function fallbackTitle(message: string): string {
  const line = message
    .split('\n')
    .map((part) => part.trim())
    .find(Boolean);
  return line ? shorten(line) : UNTITLED_CHAT;
}

/** The model's answer as a title: its first line without quotes, a "Title:" prefix or a trailing period. */
export function cleanTitle(text: string): string | undefined {
  const line = text
    .split('\n')
    .map((part) => part.trim())
    .find(Boolean);
  if (!line) return undefined;
  const bare = line
    .replace(/^(title|chat title)\s*:\s*/i, '')
    .replace(/^["'“”‘’*#\s]+|["'“”‘’*.。\s]+$/g, '')
    .trim();
  return bare ? shorten(bare) : undefined;
}

/** What titling one new chat takes. */
export interface TitleChatInput {
  readonly storage: Storage;
  readonly chatId: string;
  /** The chat's title when its first turn started. */
  readonly currentTitle: string;
  readonly question: string;
  readonly model: LanguageModelV4;
  /** The first turn's answer once it ended (undefined when it had none: a stop before any text, a failure). */
  readonly answer: Promise<string | undefined>;
  readonly logger?: WarningLogger;
}

function errorName(error: unknown): string {
  const name = (error as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : 'error';
}

/**
 * Titles a chat whose first turn just started: the fallback now, the model's title after the answer. Never
 * rejects: a failure (the model's, storage's) only logs its error name, and the chat keeps the title it has.
 */
export async function titleNewChat(input: TitleChatInput): Promise<void> {
  try {
    await titleChat(input);
  } catch (error) {
    input.logger?.warn('chat.title_failed', { chatId: input.chatId, error: errorName(error) });
  }
}

async function titleChat(input: TitleChatInput): Promise<void> {
  if (input.currentTitle.trim() !== '' && input.currentTitle !== UNTITLED_CHAT) return;
  const fallback = fallbackTitle(input.question);
  await input.storage.chats.rename(input.chatId, fallback);
  const answer = await input.answer;
  if (!answer?.trim()) return;
  // The model layer directly, as turns use it: the `ai` package's generateText would load about 25 MB into the
  // server's process for this one request.
  const result = await input.model.doGenerate({
    prompt: [
      { role: 'system', content: TITLE_INSTRUCTION },
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: `User: ${input.question.slice(0, 2000)}\n\nAssistant: ${answer.slice(0, 2000)}`,
          },
        ],
      },
    ],
    maxOutputTokens: 30,
  });
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  const title = cleanTitle(text);
  if (!title) return;
  // Renamed by the user while the model wrote: theirs stands.
  const now = await input.storage.chats.get(input.chatId);
  if (now?.title !== fallback) return;
  await input.storage.chats.rename(input.chatId, title);
}
