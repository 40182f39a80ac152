export type { CreateOpenApiToolsOptions } from './create-openapi-tools.ts';
export { createOpenApiTools } from './create-openapi-tools.ts';
export type { MemoryFileStore, OpenApiFileInput, OpenApiFileStore } from './file-store.ts';
export { createMemoryFileStore } from './file-store.ts';
export type { OpenApiResponseType } from './interpret-response.ts';
export type { OpenApiAuthErrorOptions } from './openapi-auth-error.ts';
export { OpenApiAuthError } from './openapi-auth-error.ts';
export type { OpenApiDocumentErrorOptions } from './openapi-document-error.ts';
export { OpenApiDocumentError } from './openapi-document-error.ts';
export type { OpenApiHttpErrorOptions } from './openapi-http-error.ts';
export { OpenApiHttpError } from './openapi-http-error.ts';
export type {
  OpenApiDocumentInput,
  OpenApiSpecification,
  ParsedOpenApiDocument,
  ParseOpenApiDocumentOptions,
} from './parse-openapi-document.ts';
export { isParsedOpenApiDocument, parseOpenApiDocument } from './parse-openapi-document.ts';
