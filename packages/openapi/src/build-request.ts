import { isLegalHeaderValue, ToolCallError } from '@toolbus/spec';
import type { OpenApiOperation, OperationParameter } from './list-operations.ts';
import type { ArgumentBinding } from './operation-arguments.ts';
import type { ResolvedCredential } from './resolve-auth.ts';

/** A request ready for fetch, plus a URL safe to show (credential query values removed). */
export interface BuiltRequest {
  readonly url: URL;
  readonly displayUrl: string;
  readonly method: string;
  readonly headers: Headers;
  readonly body?: string | URLSearchParams | FormData | undefined;
}

/** Options for {@link buildRequest}. */
export interface BuildRequestOptions {
  readonly operation: OpenApiOperation;
  readonly serverUrl: string;
  readonly bindings: readonly ArgumentBinding[];
  readonly bodyProperty?: string | undefined;
  /** Validated arguments. */
  readonly args: Readonly<Record<string, unknown>>;
  readonly credentials: readonly ResolvedCredential[];
}

/**
 * Builds the request for a call: path parameters percent-encoded into the path template (`.` and `..` refused,
 * as URL parsing would turn them into directory traversal), query parameters serialised per `style`/`explode`
 * (OpenAPI 3) or `collectionFormat` (Swagger 2), headers, the body in its media type, and the credentials last
 * so that nothing the model wrote can replace them.
 */
export function buildRequest(options: BuildRequestOptions): BuiltRequest {
  const { operation, args } = options;
  let path = operation.path;
  const query = new URLSearchParams();
  const headers = new Headers();
  for (const binding of options.bindings) {
    const value = args[binding.property];
    if (value === undefined || value === null) continue;
    const parameter = binding.parameter;
    switch (parameter.location) {
      case 'path':
        path = path.split(`{${parameter.name}}`).join(pathValue(parameter, value, binding.property));
        break;
      case 'query':
        appendQuery(query, parameter, value);
        break;
      case 'header': {
        const text = parameter.serializeAsJson ? JSON.stringify(value) : plainValue(value, ',');
        // The model wrote it: say so, so it can correct itself (a stored credential is dropped instead).
        if (!isLegalHeaderValue(text)) {
          throw invalidValue(
            binding.property,
            'a header value can only hold Latin-1 characters, without line breaks or control codes',
          );
        }
        headers.set(parameter.name, text);
        break;
      }
      default:
        break;
    }
  }
  // URL parsing resolves `.` and `..` segments, also percent-encoded ones: a value must not walk up the path.
  for (const segment of path.split('/')) {
    if (/^(?:\.|%2e){1,2}$/i.test(segment))
      throw invalidValue('path', 'a path parameter cannot be "." or ".."');
  }
  const base = options.serverUrl.endsWith('/') ? options.serverUrl.slice(0, -1) : options.serverUrl;
  const url = new URL(`${base}${path.startsWith('/') ? path : `/${path}`}`);
  for (const [name, value] of query) url.searchParams.append(name, value);
  const displayUrl = url.toString();
  const cookies: string[] = [];
  for (const credential of options.credentials) {
    if (credential.location === 'header') headers.set(credential.name, credential.value);
    else if (credential.location === 'query') url.searchParams.set(credential.name, credential.value);
    else cookies.push(`${credential.name}=${encodeURIComponent(credential.value)}`);
  }
  if (cookies.length > 0) headers.set('cookie', cookies.join('; '));
  headers.set('accept', 'application/json, text/*;q=0.9, */*;q=0.8');
  const body = buildBody(
    operation,
    options.bodyProperty === undefined ? undefined : args[options.bodyProperty],
    headers,
  );
  return {
    url,
    displayUrl,
    method: operation.method.toUpperCase(),
    headers,
    body,
  };
}

/**
 * A path parameter per OpenAPI 3 `style` (RFC 6570): `simple` (default) `a,b` / `k,v` / `k=v` exploded; `label`
 * `.a`; `matrix` `;name=a`. Every value is percent-encoded, so a `/` in a value cannot add a path segment.
 */
function pathValue(parameter: OperationParameter, value: unknown, property: string): string {
  const encode = (entry: unknown) => encodeURIComponent(plainValue(entry, ','));
  const explode = parameter.explode ?? false;
  const style = parameter.style ?? 'simple';
  let pairs: [string, string][] | undefined;
  let items: string[];
  if (parameter.serializeAsJson) {
    items = [encodeURIComponent(JSON.stringify(value))];
  } else if (Array.isArray(value)) {
    items = value.map(encode);
  } else if (typeof value === 'object' && value !== null) {
    pairs = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .map(([key, entry]) => [encodeURIComponent(key), encode(entry)]);
    items = explode ? pairs.map(([key, entry]) => `${key}=${entry}`) : pairs.flat();
  } else {
    items = [encode(value)];
  }
  const name = encodeURIComponent(parameter.name);
  let text: string;
  if (style === 'label') {
    text = `.${items.join(explode ? '.' : ',')}`;
  } else if (style === 'matrix') {
    if (explode && pairs !== undefined) text = items.map((item) => `;${item}`).join('');
    else if (explode && Array.isArray(value)) text = items.map((item) => `;${name}=${item}`).join('');
    else text = `;${name}=${items.join(',')}`;
  } else {
    text = items.join(',');
  }
  if (text === '') throw invalidValue(property, 'a path parameter cannot be empty');
  return text;
}

function appendQuery(query: URLSearchParams, parameter: OperationParameter, value: unknown): void {
  if (parameter.serializeAsJson) {
    query.append(parameter.name, JSON.stringify(value));
    return;
  }
  if (Array.isArray(value)) {
    const items = value.map((item) => plainValue(item, ','));
    const format = parameter.collectionFormat;
    const style = parameter.style ?? 'form';
    const explode = format !== undefined ? format === 'multi' : (parameter.explode ?? style === 'form');
    if (explode) {
      for (const item of items) query.append(parameter.name, item);
      return;
    }
    const separator =
      format === 'ssv' || style === 'spaceDelimited'
        ? ' '
        : format === 'tsv'
          ? '\t'
          : format === 'pipes' || style === 'pipeDelimited'
            ? '|'
            : ',';
    query.append(parameter.name, items.join(separator));
    return;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).filter(
      ([, entry]) => entry !== undefined,
    );
    if (parameter.style === 'deepObject') {
      for (const [key, entry] of entries) query.append(`${parameter.name}[${key}]`, plainValue(entry, ','));
    } else if (parameter.explode ?? true) {
      for (const [key, entry] of entries) query.append(key, plainValue(entry, ','));
    } else {
      query.append(
        parameter.name,
        entries.map(([key, entry]) => `${key},${plainValue(entry, ',')}`).join(','),
      );
    }
    return;
  }
  query.append(parameter.name, plainValue(value, ','));
}

function plainValue(value: unknown, separator: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map((item) => plainValue(item, separator)).join(separator);
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}

function buildBody(
  operation: OpenApiOperation,
  value: unknown,
  headers: Headers,
): string | URLSearchParams | FormData | undefined {
  const body = operation.body;
  if (body === undefined || value === undefined) return undefined;
  const mediaType = body.mediaType;
  if (/json/i.test(mediaType)) {
    headers.set('content-type', mediaType);
    return JSON.stringify(value);
  }
  if (/^application\/x-www-form-urlencoded/i.test(mediaType)) {
    // URLSearchParams sets its own content type.
    const form = new URLSearchParams();
    for (const [key, entry] of Object.entries(asObject(value))) form.append(key, plainValue(entry, ','));
    return form;
  }
  if (/^multipart\/form-data/i.test(mediaType)) {
    // FormData sets the content type with its boundary.
    const form = new FormData();
    const fields = asObject(asObject(body.schema).properties);
    for (const [key, entry] of Object.entries(asObject(value))) {
      const field = asObject(fields[key]);
      // File fields go as files: byte-exact (a plain form value would have its line breaks rewritten to CRLF).
      if (field.type === 'file' || field.format === 'binary')
        form.append(key, new Blob([plainValue(entry, ',')]), key);
      else form.append(key, plainValue(entry, ','));
    }
    return form;
  }
  headers.set('content-type', mediaType);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function invalidValue(property: string, problem: string): ToolCallError {
  return new ToolCallError({
    code: 'invalid_arguments',
    message: `Invalid value for "${property}": ${problem}.`,
    modelMessage: `The value of "${property}" is invalid: ${problem}. Give a real value and call again.`,
  });
}
