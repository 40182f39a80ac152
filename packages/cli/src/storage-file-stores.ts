import type { McpFileStore } from '@toolbus/mcp';
import type { OpenApiFileStore } from '@toolbus/openapi';
import type { FileReference } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';

/**
 * The file stores MCP and OpenAPI tools keep binary results in (images, CSVs, blobs), over the local user's
 * stored files: what a tool produced outlives the process, and chat writes it to the output folder.
 */
export function storageFileStores(
  storage: Storage,
  userId: string,
): { readonly mcp: McpFileStore; readonly openApi: OpenApiFileStore } {
  const save = async (name: string, mediaType: string, content: Uint8Array): Promise<FileReference> => {
    const stored = await storage.files.put({ userId, name, mediaType, content });
    return { fileId: stored.id, name: stored.name, mediaType: stored.mediaType, sizeBytes: stored.sizeBytes };
  };
  return {
    mcp: { save: (file) => save(file.name, file.mediaType, file.data) },
    openApi: { save: (file) => save(file.name, file.mediaType, file.bytes) },
  };
}
