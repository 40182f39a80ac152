import {
  consoleWarningLogger,
  type FetchFunction,
  type OpenApiAuth,
  type Tool,
  type WarningLogger,
} from '@toolbus/spec';
import { createOperationTool } from './create-operation-tool.ts';
import { createMemoryFileStore, type OpenApiFileStore } from './file-store.ts';
import { listOperations, type OpenApiOperation } from './list-operations.ts';
import { OpenApiDocumentError } from './openapi-document-error.ts';
import { operationArguments } from './operation-arguments.ts';
import {
  isParsedOpenApiDocument,
  type OpenApiDocumentInput,
  type ParsedOpenApiDocument,
  parseOpenApiDocument,
} from './parse-openapi-document.ts';
import { dropIllegalCredentialHeaders, reservedCredentialNames, resolveAuth } from './resolve-auth.ts';
import { createToolNamer } from './tool-name.ts';

/** Options for {@link createOpenApiTools}. */
export interface CreateOpenApiToolsOptions {
  /** The document (object, JSON or YAML text), or a {@link ParsedOpenApiDocument} cached from an earlier parse. */
  readonly document: OpenApiDocumentInput | ParsedOpenApiDocument;
  /** WHATWG fetch; applications pass the guarded one (`createGuardedFetch`). */
  readonly fetch: FetchFunction;
  /** Stored credentials, applied by the backend to every request and never shown to the model. */
  readonly auth?: OpenApiAuth | readonly OpenApiAuth[] | undefined;
  /** Replaces the document's server URLs for every operation (relative server URLs are resolved against it). */
  readonly baseUrl?: string | undefined;
  /** Put before every tool name (e.g. `github` → `github_repos_get`), to keep APIs apart in one assembly. */
  readonly namePrefix?: string | undefined;
  /** Bytes of a JSON or text answer kept for the model (default 256 KiB); longer answers are cut with a note. */
  readonly maxResponseBytes?: number | undefined;
  /** Largest file answer kept (images, CSV, binaries; default 10 MiB). */
  readonly maxFileBytes?: number | undefined;
  /** Where file answers go (default: in memory). */
  readonly fileStore?: OpenApiFileStore | undefined;
  /** Validate the document against its specification (default true; ignored for a parsed document). */
  readonly validate?: boolean | undefined;
  /** Per-call timeout for the runner (the runner's default when absent). */
  readonly timeoutMs?: number | undefined;
  /** Receives one warning per credential header dropped for a byte HTTP forbids, by name (never its value); default `console.warn`. */
  readonly logger?: WarningLogger | undefined;
}

const maxDescriptionChars = 1024;

/**
 * One tool per operation of an OpenAPI 3.0/3.1 or Swagger 2.0 document. Names are sanitised operationIds (or
 * method and path when there is none), unique and provider-valid; arguments are the path, query and header
 * parameters plus the body under `body`; credentials come from `auth`. An invalid document throws
 * `OpenApiDocumentError`; credentials that do not fit it throw `OpenApiAuthError`. A credential header whose
 * value HTTP forbids (a control, DEL, a character above U+00FF) is dropped and logged by name, so the calls go
 * out without it (and the API's own refusal reaches the model) instead of every call failing in `Headers`.
 */
export async function createOpenApiTools(options: CreateOpenApiToolsOptions): Promise<Tool[]> {
  const parsed = isParsedOpenApiDocument(options.document)
    ? options.document
    : await parseOpenApiDocument(options.document, { validate: options.validate });
  const resolved = resolveAuth(parsed, options.auth);
  // Reserved from every configured credential, also a dropped one: the model must not fill its place.
  const reserved = reservedCredentialNames(parsed, resolved);
  const credentials = dropIllegalCredentialHeaders(resolved, options.logger ?? consoleWarningLogger);
  const nameFor = createToolNamer({ prefix: options.namePrefix });
  const baseUrl = options.baseUrl === undefined ? undefined : absoluteHttpUrl(options.baseUrl, 'baseUrl');
  const fileStore = options.fileStore ?? createMemoryFileStore();
  const tools: Tool[] = [];
  for (const operation of listOperations(parsed)) {
    const name = nameFor(operation);
    tools.push(
      createOperationTool({
        name,
        description: describeOperation(operation),
        displayName:
          operation.summary?.trim() ||
          operation.operationId ||
          `${operation.method.toUpperCase()} ${operation.path}`,
        operation,
        arguments: operationArguments({ operation, reserved }),
        serverUrl: serverUrlFor(operation, baseUrl),
        credentials,
        fetch: options.fetch,
        fileStore,
        maxResponseBytes: options.maxResponseBytes ?? 256 * 1024,
        maxFileBytes: options.maxFileBytes ?? 10 * 1024 * 1024,
        timeoutMs: options.timeoutMs,
      }),
    );
  }
  return tools;
}

function describeOperation(operation: OpenApiOperation): string {
  const summary = operation.summary?.trim() ?? '';
  const description = operation.description?.trim() ?? '';
  // The description often repeats the summary word for word; say it once.
  const parts = description === summary ? [summary] : [summary, description];
  // First, so that the cap cannot cut it off.
  if (operation.deprecated) parts.unshift('(Deprecated.)');
  let text = parts.filter((part) => part !== '').join('\n\n');
  if (text === '') text = `${operation.method.toUpperCase()} ${operation.path}`;
  return text.length > maxDescriptionChars ? `${text.slice(0, maxDescriptionChars - 1)}…` : text;
}

/**
 * `baseUrl` wins (an administrator's choice: a staging host, a proxy); a relative document server is resolved
 * against it. Without `baseUrl`, only an absolute http(s) server URL of the document is used.
 */
function serverUrlFor(operation: OpenApiOperation, baseUrl: string | undefined): string | undefined {
  const documentUrl = operation.serverUrl;
  if (baseUrl !== undefined) {
    if (documentUrl === undefined || /^[a-z][a-z0-9+.-]*:/i.test(documentUrl)) return baseUrl;
    const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
    return new URL(documentUrl.replace(/^\//, ''), base).toString();
  }
  if (documentUrl === undefined) return undefined;
  try {
    const url = new URL(documentUrl);
    // Credentials inside a URL would end up in messages and logs; stored credentials go through `auth`.
    const usable =
      (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
    return usable ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

function absoluteHttpUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OpenApiDocumentError({
      code: 'openapi_base_url_invalid',
      message: `The ${what} is not an absolute URL.`,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OpenApiDocumentError({
      code: 'openapi_base_url_invalid',
      message: `The ${what} must be http or https.`,
    });
  }
  if (url.username !== '' || url.password !== '') {
    // Say so without echoing the URL: it holds a secret.
    throw new OpenApiDocumentError({
      code: 'openapi_base_url_invalid',
      message: `The ${what} must not contain credentials; pass them as auth.`,
    });
  }
  return url.toString();
}
