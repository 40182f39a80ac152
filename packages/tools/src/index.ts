export type { AddMemoryStorage, StoredMemory } from './add-memory/add-memory-storage.ts';
export type { AddMemoryToolOptions } from './add-memory/add-memory-tool.ts';
export { createAddMemoryTool } from './add-memory/add-memory-tool.ts';
export { renderMemoriesForPrompt } from './add-memory/render-memories-for-prompt.ts';
export type { WithSavedMemoriesOptions } from './add-memory/with-saved-memories.ts';
export { withSavedMemories } from './add-memory/with-saved-memories.ts';
export type { ExtractedDocument } from './content/extract-document-text.ts';
export { extractDocumentText, SUPPORTED_DOCUMENT_TYPES } from './content/extract-document-text.ts';
export type { ReadablePage } from './content/html-to-markdown.ts';
export { htmlToMarkdown } from './content/html-to-markdown.ts';
export type { GenerateImageToolOptions } from './generate-image/generate-image-tool.ts';
export { createGenerateImageTool } from './generate-image/generate-image-tool.ts';
export type {
  GeneratedImageFileStore,
  GeneratedImageStorage,
  StoredImage,
} from './generate-image/generated-image-store.ts';
export type { ImageShape } from './generate-image/image-shape.ts';
export { DEFAULT_IMAGE_SIZES, IMAGE_SHAPES } from './generate-image/image-shape.ts';
export type { ChunkTextOptions } from './internal-search/chunk-text.ts';
export { chunkText } from './internal-search/chunk-text.ts';
export type {
  IndexableDocument,
  OpenDocumentIndexOptions,
  SearchHit,
  UpsertOutcome,
} from './internal-search/document-index.ts';
export { DocumentIndex, openDocumentIndex } from './internal-search/document-index.ts';
export type {
  DocumentScope,
  DocumentSearchIndex,
  IndexedDocumentInfo,
  ListDocumentsOptions,
} from './internal-search/document-search-index.ts';
export type {
  IndexPathsOptions,
  IndexPathsResult,
  IndexProgress,
  IndexSkipReason,
} from './internal-search/index-paths.ts';
export { indexPaths } from './internal-search/index-paths.ts';
export type { InternalSearchToolOptions } from './internal-search/internal-search-tool.ts';
export { createInternalSearchTool } from './internal-search/internal-search-tool.ts';
export { normalizeUrl, webDocumentId } from './open-url/normalize-url.ts';
export type { OpenPageErrorCode } from './open-url/open-page-error.ts';
export { OpenPageError } from './open-url/open-page-error.ts';
export type { OpenUrlToolOptions } from './open-url/open-url-tool.ts';
export { createOpenUrlTool } from './open-url/open-url-tool.ts';
export { InterpreterUploadCache } from './python/interpreter-upload-cache.ts';
export type { PythonToolOptions } from './python/python-tool.ts';
export { createPythonTool } from './python/python-tool.ts';
export type { PythonToolFiles } from './python/python-tool-files.ts';
export type { StagingLimits } from './python/stage-chat-files.ts';
export { sanitizeStagedFilename } from './python/staged-filename.ts';
export { truncateOutput } from './python/truncate-output.ts';
export type { ReadableFileInfo, ReadFileStorage } from './read-file/read-file-storage.ts';
export type { ReadFileToolOptions } from './read-file/read-file-tool.ts';
export { chatHasFiles, createReadFileTool } from './read-file/read-file-tool.ts';
export { createWebSearchProvider } from './web-search/create-web-search-provider.ts';
export type {
  WebSearchProvider,
  WebSearchProviderConfig,
  WebSearchProviderName,
  WebSearchRequestOptions,
  WebSearchResult,
} from './web-search/web-search-provider.ts';
export type {
  WebSearchProviderErrorCode,
  WebSearchProviderErrorOptions,
} from './web-search/web-search-provider-error.ts';
export { WebSearchProviderError } from './web-search/web-search-provider-error.ts';
export type { WebSearchToolOptions } from './web-search/web-search-tool.ts';
export { createWebSearchTool } from './web-search/web-search-tool.ts';
