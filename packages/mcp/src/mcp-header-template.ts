import { illegalHeaderReason, isLegalHeaderValue } from '@toolbus/spec';
import type { McpLogger } from './mcp-logger.ts';
import { isStructuralMcpHeader } from './merge-mcp-headers.ts';
import { placeholdersOf } from './render-mcp-header-templates.ts';

/**
 * Placeholders toolbus fills itself from the signed-in user, never from stored values: a user cannot set
 * `{user_email}` to someone else's address.
 */
export const MCP_BUILT_IN_PLACEHOLDERS: readonly string[] = ['user_email', 'user_id', 'user_name'];

/** The longest value a user may store for one placeholder. */
export const MAX_MCP_CREDENTIAL_VALUE_LENGTH = 8192;

const placeholderName = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** One template header left out, and why. The name is JSON-escaped (a CR/LF in it cannot forge log lines). */
export interface DroppedTemplateHeader {
  readonly header: string;
  readonly reason: 'denylisted' | 'invalid-name' | 'invalid-value';
}

/** What {@link checkMcpHeaderTemplate} made of an admin's template. */
export interface CheckedMcpHeaderTemplate {
  /** The headers kept, as written. */
  readonly headers: Record<string, string>;
  /** Headers left out: deny-listed names, names that are not HTTP tokens, templates with a CR/LF. */
  readonly dropped: readonly DroppedTemplateHeader[];
  /** Why the template is refused (a header with no placeholder holds a fixed value: a secret in the clear). */
  readonly problems: readonly string[];
  /** The placeholders each user fills in, first seen first (built-ins not included). */
  readonly placeholders: readonly string[];
}

/**
 * Checks an admin's header template before it is stored. A deny-listed header (`Host`, `Content-Length`, the
 * forwarding headers: the connection headers' deny list) is dropped and the drop logged by name, never by value.
 * A header without a placeholder is refused: a fixed value belongs in the server's connection headers, which are
 * stored encrypted, while the template is not.
 */
export function checkMcpHeaderTemplate(
  template: Readonly<Record<string, string>>,
  options: { readonly logger?: McpLogger } = {},
): CheckedMcpHeaderTemplate {
  const headers: Record<string, string> = {};
  const dropped: DroppedTemplateHeader[] = [];
  const problems: string[] = [];
  const placeholders = new Set<string>();
  for (const [name, value] of Object.entries(template)) {
    const reason =
      illegalHeaderReason(name, value) ??
      (isStructuralMcpHeader(name.toLowerCase()) ? 'denylisted' : undefined);
    if (reason !== undefined) {
      dropped.push({ header: JSON.stringify(name), reason });
      options.logger?.warn('Dropped MCP header template', { header: JSON.stringify(name), reason });
      continue;
    }
    const names = placeholdersOf(value);
    if (names.length === 0) {
      problems.push(
        `Header "${name}" has no {placeholder}: a fixed value belongs in the server's headers, which are stored encrypted.`,
      );
      continue;
    }
    for (const placeholder of names) {
      if (!MCP_BUILT_IN_PLACEHOLDERS.includes(placeholder)) placeholders.add(placeholder);
    }
    headers[name] = value;
  }
  return { headers, dropped, problems, placeholders: [...placeholders] };
}

/**
 * Why a user's values for a template cannot be stored, or undefined when they can. A value is refused when a
 * header cannot carry it (CR, LF, NUL or another control byte: it could split the request), and a built-in
 * placeholder cannot be set. The message names the placeholder, never the value.
 */
export function mcpCredentialValuesProblem(values: Readonly<Record<string, string>>): string | undefined {
  for (const [name, value] of Object.entries(values)) {
    if (!placeholderName.test(name)) {
      return `"${JSON.stringify(name).slice(1, -1)}" is not a placeholder name (letters, digits, _ . -).`;
    }
    if (MCP_BUILT_IN_PLACEHOLDERS.includes(name)) {
      return `{${name}} is filled by toolbus from the signed-in user and cannot be set.`;
    }
    if (typeof value !== 'string' || !isLegalHeaderValue(value)) {
      return `The value for {${name}} contains a line break (CR/LF) or another byte an HTTP header cannot carry.`;
    }
    if (value.length > MAX_MCP_CREDENTIAL_VALUE_LENGTH) {
      return `The value for {${name}} is longer than ${MAX_MCP_CREDENTIAL_VALUE_LENGTH} characters.`;
    }
  }
  return undefined;
}

/** The values of the built-in placeholders for one user (those the user has). */
export function mcpBuiltInValues(user: {
  readonly id: string;
  readonly email: string;
  readonly name?: string | null | undefined;
}): Record<string, string> {
  const values: Record<string, string> = { user_id: user.id, user_email: user.email };
  if (typeof user.name === 'string' && user.name !== '') values.user_name = user.name;
  return values;
}
