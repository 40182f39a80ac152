import { OpenApiDocumentError } from './openapi-document-error.ts';

// The parser (with ajv and its draft schemas) and yaml cost ~25 MB of memory once loaded: a server whose personas
// hold no OpenAPI tool never pays it, so they load on the first document parsed.
const loadParser = () => import('@readme/openapi-parser');
const loadYaml = () => import('yaml');

/** A document as an application stores it: an object, or its JSON or YAML text. Never a file path or URL. */
export type OpenApiDocumentInput = string | Readonly<Record<string, unknown>>;

/** Which specification a document follows. */
export type OpenApiSpecification = 'swagger-2.0' | 'openapi-3.0' | 'openapi-3.1';

const parsedMarker = Symbol.for('toolbus.openapi.ParsedOpenApiDocument');

/**
 * A validated, dereferenced document, ready to become tools. Parsing a large API (GitHub's: ~1,200 operations)
 * takes seconds; building tools from a parsed document takes a fraction of that, so applications cache this.
 * The dereferenced tree may contain cycles (recursive schemas): walk it with a cycle guard.
 */
export interface ParsedOpenApiDocument {
  readonly [parsedMarker]: true;
  readonly specification: OpenApiSpecification;
  readonly title: string;
  readonly document: Readonly<Record<string, unknown>>;
  /** Validation warnings (validation errors throw). */
  readonly warnings: readonly string[];
}

/** Options for {@link parseOpenApiDocument}. */
export interface ParseOpenApiDocumentOptions {
  /** Validate against the specification's schema (default true). Off, only structural checks remain. */
  readonly validate?: boolean | undefined;
  /** Largest accepted text, in characters (default 32 MiB). */
  readonly maxDocumentChars?: number | undefined;
  /** Upper bound for dereferencing (default 60 s). */
  readonly timeoutMs?: number;
}

/** True for the result of {@link parseOpenApiDocument} (so a cached document is not parsed again). */
export function isParsedOpenApiDocument(value: unknown): value is ParsedOpenApiDocument {
  return (
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[parsedMarker] === true
  );
}

/**
 * Parses, validates and dereferences an OpenAPI 3.0/3.1 or Swagger 2.0 document. Text is parsed here (JSON or
 * YAML), never handed to the parser as a string, because the parser reads strings as file paths or URLs; and
 * external `$ref`s are not resolved (no file or network access: a document is untrusted input). Unresolvable
 * references, invalid documents and unsupported versions throw {@link OpenApiDocumentError}.
 */
export async function parseOpenApiDocument(
  input: OpenApiDocumentInput,
  options: ParseOpenApiDocumentOptions = {},
): Promise<ParsedOpenApiDocument> {
  const value: unknown =
    typeof input === 'string' ? await parseText(input, options.maxDocumentChars ?? 32 * 1024 * 1024) : input;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new OpenApiDocumentError({ message: 'The OpenAPI document must be an object.' });
  }
  const raw = value as Readonly<Record<string, unknown>>;
  const specification = detectSpecification(raw);
  // OpenAPI 3.1 documents may have only webhooks or components (no operations, so no tools).
  const pathsOptional = specification === 'openapi-3.1' && raw.paths === undefined;
  if (!pathsOptional && (typeof raw.paths !== 'object' || raw.paths === null)) {
    throw new OpenApiDocumentError({ message: 'The OpenAPI document has no "paths" object.' });
  }
  const parserOptions = {
    resolve: { external: false, file: false },
    timeoutMs: options.timeoutMs ?? 60_000,
  } as const;
  const warnings: string[] = [];
  const { compileErrors, dereference, validate } = await loadParser();
  if (options.validate ?? true) {
    let result: Awaited<ReturnType<typeof validate>>;
    try {
      // validate() dereferences what it is given in place: give it its own copy.
      result = await validate(structuredClone(raw) as never, parserOptions);
    } catch (error) {
      throw new OpenApiDocumentError({
        message: `The OpenAPI document is invalid: ${messageOf(error)}`,
        cause: error,
      });
    }
    if (!result.valid) {
      throw new OpenApiDocumentError({ message: compileErrors(result) });
    }
    for (const warning of result.warnings) warnings.push(warning.message);
  }
  let document: Record<string, unknown>;
  try {
    document = (await dereference(structuredClone(raw) as never, parserOptions)) as unknown as Record<
      string,
      unknown
    >;
  } catch (error) {
    throw new OpenApiDocumentError({
      message: `The OpenAPI document's references cannot be resolved: ${messageOf(error)}`,
      cause: error,
    });
  }
  const info = document.info as Record<string, unknown> | undefined;
  return {
    [parsedMarker]: true,
    specification,
    title: typeof info?.title === 'string' ? info.title : '',
    document,
    warnings,
  };
}

async function parseText(text: string, maxChars: number): Promise<unknown> {
  if (text.length > maxChars) {
    throw new OpenApiDocumentError({
      message: `The OpenAPI document is too large (${text.length} characters; the limit is ${maxChars}).`,
    });
  }
  const trimmed = text.trimStart();
  try {
    if (trimmed.startsWith('{')) return JSON.parse(trimmed);
    // YAML is a superset of JSON; the yaml package caps alias expansion, so "billion laughs" documents fail.
    const { parse: parseYaml } = await loadYaml();
    return parseYaml(text, { maxAliasCount: 1000 });
  } catch (error) {
    throw new OpenApiDocumentError({
      message: `The OpenAPI document is neither valid JSON nor valid YAML: ${messageOf(error)}`,
      cause: error,
    });
  }
}

function detectSpecification(raw: Readonly<Record<string, unknown>>): OpenApiSpecification {
  const swagger = raw.swagger;
  const openapi = raw.openapi;
  if (swagger !== undefined) {
    if (String(swagger) === '2.0') return 'swagger-2.0';
    throw new OpenApiDocumentError({
      code: 'openapi_version_unsupported',
      message: `Swagger version "${String(swagger)}" is not supported (only 2.0).`,
    });
  }
  if (typeof openapi === 'string') {
    if (/^3\.0\.\d+$/.test(openapi)) return 'openapi-3.0';
    if (/^3\.1\.\d+$/.test(openapi)) return 'openapi-3.1';
    throw new OpenApiDocumentError({
      code: 'openapi_version_unsupported',
      message: `OpenAPI version "${openapi}" is not supported (3.0.x, 3.1.x and Swagger 2.0 are).`,
    });
  }
  throw new OpenApiDocumentError({
    message: 'This is not an OpenAPI document: it has neither an "openapi" nor a "swagger" version field.',
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
