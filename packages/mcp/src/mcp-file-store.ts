import type { FileReference } from '@toolbus/spec';

/** Where binary MCP results (images, audio, blob resources) are kept; the application's file storage. */
export interface McpFileStore {
  save(file: {
    readonly data: Uint8Array;
    readonly mediaType: string;
    readonly name: string;
  }): Promise<FileReference>;
}
