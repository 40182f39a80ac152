import { defineTool } from '@toolbus/core';
import type { AvailabilityContext, ChatFile, Tool } from '@toolbus/spec';
import { ToolbusError, ToolCallError } from '@toolbus/spec';
import * as z from 'zod';
import { cleanName, describeChatFiles } from './describe-chat-files.ts';
import { FileTextCache } from './file-text-cache.ts';
import { loadFileText } from './load-file-text.ts';
import { pageText } from './page-text.ts';
import type { ReadFileStorage } from './read-file-storage.ts';

/** Options for {@link createReadFileTool}. */
export interface ReadFileToolOptions {
  /** Where uploaded files live (`@toolbus/storage`'s `Storage` fits). */
  readonly storage: ReadFileStorage;
  /**
   * The most characters one call returns, and the default page. Default 16,000: about 4,000 tokens, enough to read
   * a section at a time without one call crowding the context window.
   */
  readonly maxChars?: number;
  /** Files larger than this are not opened (their text would not fit a chat anyway). Default 64 MiB. */
  readonly maxFileBytes?: number;
  /** Characters of decoded and extracted text kept between calls, for all files together. Default 32 million. */
  readonly cacheChars?: number;
}

/**
 * Offered when the chat has uploaded files: the application puts the chat's files (`ChatFile[]`) in the
 * availability context as `files`. toolbus's search index holds the user's document folders, not a chat's uploads,
 * so the chat's files decide, whatever search is configured (see docs/decisions/differences-from-onyx.md).
 */
export function chatHasFiles(context: AvailabilityContext): boolean {
  const files = context.files;
  return Array.isArray(files) && files.length > 0;
}

/**
 * `read_file`: pages through the text of a file uploaded to the chat by character offsets (at most `maxChars`
 * per call), telling the model the total length, the range it got, and the `start_char` of the next page. Text
 * files are decoded as UTF-8; PDF and HTML give their readable text, extracted once per file and cached. Only the
 * chat's own files (`context.files`) owned by the calling user can be read: any other id is refused with the list
 * of readable files, without saying whether the id exists. Emits `file-reader-result`. Availability:
 * {@link chatHasFiles}.
 */
export function createReadFileTool(options: ReadFileToolOptions): Tool {
  const { storage } = options;
  const maxChars = options.maxChars ?? 16_000;
  const maxFileBytes = options.maxFileBytes ?? 64 * 1024 * 1024;
  const cache = new FileTextCache({ maxChars: options.cacheChars ?? 32_000_000 });
  return defineTool({
    name: 'read_file',
    displayName: 'File Reader',
    description:
      `Read the text of a file the user uploaded to this chat, ${maxChars} characters at a time. Pass the file_id ` +
      'listed for the file (not its name). For a long file, call again with start_char set to the end of the ' +
      'range you got, as the result tells you.',
    parameters: z.object({
      file_id: z.string().min(1).max(256).describe('The file_id of an uploaded file (not the file name)'),
      start_char: z.int().optional().describe('Offset of the first character to read. Default 0'),
      num_chars: z.int().optional().describe(`How many characters to read. Default and maximum ${maxChars}`),
    }),
    exampleArguments: { file_id: 'the-file-id', start_char: 0, num_chars: maxChars },
    isAvailable: chatHasFiles,
    async run({ file_id: fileId, start_char: requestedStart, num_chars: requestedCount }, context) {
      const info = context.files.some((file) => file.id === fileId)
        ? await storage.files.get(fileId)
        : undefined;
      if (info === undefined || context.userId === undefined || info.userId !== context.userId) {
        throw notAvailable(fileId, context.files);
      }
      const name = cleanName(info.name);
      if (info.sizeBytes > maxFileBytes) {
        throw new ToolCallError({
          code: 'file_too_large',
          message: `read_file: ${fileId} has ${info.sizeBytes} bytes, over the ${maxFileBytes}-byte limit`,
          modelMessage: `"${name}" is too large to read (${info.sizeBytes} bytes; the limit is ${maxFileBytes}). Tell the user.`,
        });
      }
      const text = await cache.get(fileId, () =>
        loadText({ storage, fileId, name, mediaType: info.mediaType }),
      );
      const total = text.length;
      if (total === 0) {
        context.emitter.emit(
          resultPacket({ toolCallId: context.call.id, fileId, name, start: 0, end: 0, total }),
        );
        return {
          llmFacing: `File: ${name}\nThe file has no readable text (0 characters).`,
          rich: { type: 'file-read', fileId, fileName: name, startChar: 0, endChar: 0, totalChars: 0 },
        };
      }
      const start = Math.max(0, requestedStart ?? 0);
      if (start >= total) {
        throw new ToolCallError({
          code: 'start_past_end',
          message: `read_file: start_char ${start} is past the end of ${fileId} (${total} characters)`,
          modelMessage: `start_char=${start} is past the end of "${name}", which has ${total} characters. Use a start_char from 0 to ${total - 1}.`,
        });
      }
      const count = Math.min(maxChars, Math.max(1, requestedCount ?? maxChars));
      const page = pageText({ text, start, count });
      context.emitter.emit(
        resultPacket({ toolCallId: context.call.id, fileId, name, start: page.start, end: page.end, total }),
      );
      const next = page.end < total ? ` (use start_char=${page.end} to continue reading)` : ' (end of file)';
      return {
        llmFacing: `File: ${name}\nCharacters ${page.start}-${page.end} of ${total}${next}\n\n${page.text}`,
        rich: {
          type: 'file-read',
          fileId,
          fileName: name,
          startChar: page.start,
          endChar: page.end,
          totalChars: total,
        },
      };
    },
  });
}

async function loadText(options: {
  readonly storage: ReadFileStorage;
  readonly fileId: string;
  readonly name: string;
  readonly mediaType: string;
}): Promise<string> {
  const { fileId, name } = options;
  const bytes = await options.storage.files.readContent(fileId);
  if (bytes === undefined) {
    throw new ToolCallError({
      code: 'file_not_found',
      message: `read_file: the content of ${fileId} is gone from storage`,
      modelMessage: `"${name}" no longer exists. Tell the user it has to be uploaded again.`,
    });
  }
  let outcome: Awaited<ReturnType<typeof loadFileText>>;
  try {
    outcome = await loadFileText({ bytes, mediaType: options.mediaType, name });
  } catch (error) {
    if (!ToolbusError.isInstance(error)) throw error;
    throw new ToolCallError({
      code: 'file_unreadable',
      message: `read_file: extracting the text of ${fileId} failed`,
      modelMessage: `"${name}" could not be read as ${options.mediaType} (the file may be damaged). Tell the user.`,
      cause: error,
    });
  }
  if (outcome.kind === 'not-text') {
    throw new ToolCallError({
      code: 'file_not_text',
      message: `read_file: ${fileId} is ${outcome.mediaType}, not text`,
      modelMessage: `"${name}" is a ${cleanName(outcome.mediaType)} file and cannot be read as text.`,
    });
  }
  return outcome.text;
}

function notAvailable(fileId: string, files: readonly ChatFile[]): ToolCallError {
  return new ToolCallError({
    code: 'file_not_available',
    message: `read_file: ${cleanName(fileId)} is not a file of this chat owned by the user`,
    modelMessage: `No file with file_id "${cleanName(fileId)}" is available in this chat. Use a file_id from the list, not a file name.\n${describeChatFiles(files)}`,
  });
}

function resultPacket(options: {
  readonly toolCallId: string;
  readonly fileId: string;
  readonly name: string;
  readonly start: number;
  readonly end: number;
  readonly total: number;
}) {
  return {
    type: 'file-reader-result',
    toolCallId: options.toolCallId,
    fileId: options.fileId,
    fileName: options.name,
    startChar: options.start,
    endChar: options.end,
    totalChars: options.total,
  } as const;
}
