import { dropIllegalHeaders, type OpenApiAuth, type WarningLogger } from '@toolbus/spec';
import { OpenApiAuthError } from './openapi-auth-error.ts';
import type { ParsedOpenApiDocument } from './parse-openapi-document.ts';

/** A credential placed: where it goes in the request, and which strings must never reach the model. */
export interface ResolvedCredential {
  readonly location: 'header' | 'query' | 'cookie';
  readonly name: string;
  readonly value: string;
  readonly secrets: readonly string[];
}

/** The names a document reserves for credentials: never offered to the model as parameters. */
export interface ReservedCredentialNames {
  readonly headers: ReadonlySet<string>;
  readonly query: ReadonlySet<string>;
}

type JsonObject = Record<string, unknown>;

/** A security scheme of the document, flattened. */
export interface SecurityScheme {
  readonly schemeName: string;
  readonly type: string;
  readonly httpScheme?: string;
  readonly name?: string;
  readonly in?: string;
}

/** The security schemes a document declares (OpenAPI 3 `components.securitySchemes`, Swagger 2 `securityDefinitions`). */
export function listSecuritySchemes(parsed: ParsedOpenApiDocument): SecurityScheme[] {
  const document = parsed.document as JsonObject;
  const source =
    parsed.specification === 'swagger-2.0'
      ? document.securityDefinitions
      : (document.components as JsonObject | undefined)?.securitySchemes;
  if (typeof source !== 'object' || source === null) return [];
  const schemes: SecurityScheme[] = [];
  for (const [schemeName, value] of Object.entries(source as JsonObject)) {
    if (typeof value !== 'object' || value === null) continue;
    const scheme = value as JsonObject;
    if (typeof scheme.type !== 'string') continue;
    schemes.push({
      schemeName,
      type: scheme.type,
      ...(typeof scheme.scheme === 'string' ? { httpScheme: scheme.scheme.toLowerCase() } : {}),
      ...(typeof scheme.name === 'string' ? { name: scheme.name } : {}),
      ...(typeof scheme.in === 'string' ? { in: scheme.in } : {}),
    });
  }
  return schemes;
}

/** Header and query names the document's API-key schemes use, plus the headers that always carry credentials. */
export function reservedCredentialNames(
  parsed: ParsedOpenApiDocument,
  credentials: readonly ResolvedCredential[],
): ReservedCredentialNames {
  const headers = new Set(['authorization', 'proxy-authorization', 'cookie']);
  const query = new Set<string>();
  const add = (location: string | undefined, name: string | undefined) => {
    if (name === undefined) return;
    if (location === 'header') headers.add(name.toLowerCase());
    if (location === 'query') query.add(name);
  };
  for (const scheme of listSecuritySchemes(parsed)) if (scheme.type === 'apiKey') add(scheme.in, scheme.name);
  for (const credential of credentials) add(credential.location, credential.name);
  return { headers, query };
}

/**
 * Places each credential, using the document's security schemes where the credential leaves details open.
 * Fails closed with {@link OpenApiAuthError} when a credential cannot be placed or two fight over one place;
 * messages name schemes and headers, never values.
 */
export function resolveAuth(
  parsed: ParsedOpenApiDocument,
  auth: OpenApiAuth | readonly OpenApiAuth[] | undefined,
): ResolvedCredential[] {
  if (auth === undefined) return [];
  const credentials = (Array.isArray(auth) ? auth : [auth]) as readonly OpenApiAuth[];
  const schemes = listSecuritySchemes(parsed);
  const resolved = credentials.map((credential) => resolveOne(credential, schemes));
  const places = new Set<string>();
  for (const credential of resolved) {
    const place = `${credential.location}:${credential.location === 'header' ? credential.name.toLowerCase() : credential.name}`;
    if (places.has(place)) {
      throw new OpenApiAuthError({
        message: `Two credentials set the same ${credential.location} "${credential.name}"; keep one.`,
      });
    }
    places.add(place);
  }
  return resolved;
}

function resolveOne(credential: OpenApiAuth, schemes: readonly SecurityScheme[]): ResolvedCredential {
  const named =
    credential.scheme === undefined ? undefined : schemes.find((s) => s.schemeName === credential.scheme);
  if (credential.scheme !== undefined && named === undefined) {
    throw new OpenApiAuthError({
      message: `The document has no security scheme named "${credential.scheme}" (it has: ${schemes.map((s) => s.schemeName).join(', ') || 'none'}).`,
    });
  }
  switch (credential.type) {
    case 'api-key': {
      requireSecret(credential.value, 'api-key value');
      if (named !== undefined && named.type !== 'apiKey') {
        throw new OpenApiAuthError({
          message: `Security scheme "${named.schemeName}" is ${named.type}, not apiKey.`,
        });
      }
      let name = credential.name;
      let location = credential.in;
      if (name === undefined || location === undefined) {
        const candidates = named ? [named] : schemes.filter((scheme) => scheme.type === 'apiKey');
        if (candidates.length !== 1) {
          throw new OpenApiAuthError({
            message:
              candidates.length === 0
                ? 'The API key has no "name"/"in" and the document declares no apiKey security scheme to take them from.'
                : `The document declares several apiKey schemes (${candidates.map((s) => s.schemeName).join(', ')}); choose one with "scheme".`,
          });
        }
        const scheme = candidates[0] as SecurityScheme;
        name ??= scheme.name;
        location ??= scheme.in as typeof location;
      }
      if (
        name === undefined ||
        name === '' ||
        (location !== 'header' && location !== 'query' && location !== 'cookie')
      ) {
        throw new OpenApiAuthError({
          message: 'The API key needs a name and a location (header, query or cookie).',
        });
      }
      return { location, name, value: credential.value, secrets: [credential.value] };
    }
    case 'bearer': {
      requireSecret(credential.token, 'bearer token');
      if (
        named !== undefined &&
        !(
          named.type === 'oauth2' ||
          named.type === 'openIdConnect' ||
          (named.type === 'http' && named.httpScheme === 'bearer')
        )
      ) {
        throw new OpenApiAuthError({
          message: `Security scheme "${named.schemeName}" does not take a bearer token.`,
        });
      }
      return {
        location: 'header',
        name: 'Authorization',
        value: `Bearer ${credential.token}`,
        secrets: [credential.token],
      };
    }
    case 'basic': {
      requireSecret(credential.password, 'basic password');
      if (
        named !== undefined &&
        !(named.type === 'basic' || (named.type === 'http' && named.httpScheme === 'basic'))
      ) {
        throw new OpenApiAuthError({ message: `Security scheme "${named.schemeName}" is not HTTP basic.` });
      }
      const pair = `${credential.username}:${credential.password}`;
      const encoded = base64(pair);
      return {
        location: 'header',
        name: 'Authorization',
        value: `Basic ${encoded}`,
        secrets: [credential.password, pair, encoded],
      };
    }
    default:
      throw new OpenApiAuthError({
        message: `Unknown credential type "${(credential as { type: unknown }).type}".`,
      });
  }
}

function requireSecret(value: unknown, what: string): void {
  if (typeof value !== 'string' || value === '')
    throw new OpenApiAuthError({ message: `The ${what} is empty.` });
}

/**
 * The credentials without the header ones HTTP would refuse (a name that is not a token; a value with a control,
 * DEL or a character above U+00FF, which would make `Headers` throw on every call), each dropped one logged by
 * name. Query and cookie credentials are percent-encoded, so any value is safe there.
 */
export function dropIllegalCredentialHeaders(
  credentials: readonly ResolvedCredential[],
  logger: WarningLogger | undefined,
): ResolvedCredential[] {
  const kept: ResolvedCredential[] = [];
  for (const credential of credentials) {
    if (credential.location !== 'header') {
      kept.push(credential);
      continue;
    }
    const { dropped } = dropIllegalHeaders([[credential.name, credential.value]]);
    if (dropped.length === 0) kept.push(credential);
    for (const item of dropped) logger?.warn('Dropped OpenAPI credential header', { ...item });
  }
  return kept;
}

function base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
