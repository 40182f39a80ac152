export type { ExtractedDocument } from './content/extract-document-text.ts';
export { extractDocumentText, SUPPORTED_DOCUMENT_TYPES } from './content/extract-document-text.ts';
export type { ReadablePage } from './content/html-to-markdown.ts';
export { htmlToMarkdown } from './content/html-to-markdown.ts';
export type { ChunkTextOptions } from './internal-search/chunk-text.ts';
export { chunkText } from './internal-search/chunk-text.ts';
export type {
  IndexableDocument,
  OpenDocumentIndexOptions,
  SearchHit,
  UpsertOutcome,
} from './internal-search/document-index.ts';
export { DocumentIndex, openDocumentIndex } from './internal-search/document-index.ts';
export type { IndexPathsOptions, IndexPathsResult, IndexProgress } from './internal-search/index-paths.ts';
export { indexPaths } from './internal-search/index-paths.ts';
export type { InternalSearchToolOptions } from './internal-search/internal-search-tool.ts';
export { createInternalSearchTool } from './internal-search/internal-search-tool.ts';
export { InterpreterUploadCache } from './python/interpreter-upload-cache.ts';
export type { PythonToolOptions } from './python/python-tool.ts';
export { createPythonTool } from './python/python-tool.ts';
export type { PythonToolFiles } from './python/python-tool-files.ts';
export type { StagingLimits } from './python/stage-chat-files.ts';
export { sanitizeStagedFilename } from './python/staged-filename.ts';
