import { z } from 'zod';

/** A file the caller uploaded. */
export const fileSchema = z.object({
  id: z.string(),
  name: z.string(),
  mediaType: z.string(),
  sizeBytes: z.number(),
  sha256: z.string(),
  organizationId: z.string().describe('The organisation the file belongs to (the one the caller acted in)'),
  createdAt: z.string(),
});

/** The caller's files. */
export const fileListSchema = z.object({ files: z.array(fileSchema) });

/** Path parameters of the routes of one file. */
export const fileParams = z.object({ fileId: z.string().min(1).max(100) });

/** A memory the model keeps about the caller. */
export const memorySchema = z.object({
  id: z.string(),
  organizationId: z.string().describe('The organisation the memory belongs to (the one the caller acted in)'),
  text: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** The caller's memories. */
export const memoryListSchema = z.object({ memories: z.array(memorySchema) });

/** Path parameters of the routes of one memory. */
export const memoryParams = z.object({ memoryId: z.string().min(1).max(100) });

/** Writing a memory's text. */
export const memoryBody = z.object({ text: z.string().min(1).max(2000) });

const searchUsage = z.enum(['auto', 'enabled', 'disabled']);

/** The caller's own settings. */
export const userSettingsSchema = z.object({ memoryToolEnabled: z.boolean(), searchUsage });

/** Changing the caller's own settings: only the fields given. */
export const userSettingsBody = z.object({
  memoryToolEnabled: z.boolean().optional(),
  searchUsage: searchUsage.optional(),
});
