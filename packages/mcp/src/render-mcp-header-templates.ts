import type { McpLogger } from './mcp-logger.ts';

/** `{name}` placeholders, and `{{` / `}}` for literal braces. */
const templatePattern = /\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_.-]*)\}/g;

/** The `{name}` placeholders of one template, in first-seen order (`{{` and `}}` are literal braces, not one). */
export function placeholdersOf(template: string): string[] {
  const names = new Set<string>();
  for (const match of template.matchAll(templatePattern)) if (match[1] !== undefined) names.add(match[1]);
  return [...names];
}

/** Options for {@link renderMcpHeaderTemplates}. */
export interface RenderMcpHeaderTemplatesOptions {
  /** Receives one warning per header left out, naming the header and the missing placeholders (never values). */
  readonly logger?: McpLogger;
}

/** What {@link renderMcpHeaderTemplates} produced. */
export interface RenderedMcpHeaders {
  readonly headers: Record<string, string>;
  /** Placeholders that had no value (each header that used one was left out), in first-seen order. */
  readonly missing: readonly string[];
}

/**
 * Fills a server's stored header templates from the user's stored credentials: `Authorization: Bearer {token}`
 * with `{ token: 'abc' }` gives `Authorization: Bearer abc`. A header whose placeholder has no value (absent or
 * empty) is left out, never sent half filled (`Bearer `). Substitution is one pass over the template: a value is
 * inserted as it is and never read again, so braces inside a credential (`{token}` in a password) are never
 * expanded a second time. `{{` and `}}` stand for literal braces; any other brace is kept as written.
 */
export function renderMcpHeaderTemplates(
  templates: Readonly<Record<string, string>>,
  values: Readonly<Record<string, string>>,
  options: RenderMcpHeaderTemplatesOptions = {},
): RenderedMcpHeaders {
  const headers: Record<string, string> = {};
  const missing = new Set<string>();
  for (const [name, template] of Object.entries(templates)) {
    if (typeof template !== 'string') continue;
    const absent: string[] = [];
    const rendered = template.replace(templatePattern, (token: string, placeholder: string | undefined) => {
      if (placeholder === undefined) return token === '{{' ? '{' : '}';
      const value = Object.hasOwn(values, placeholder) ? values[placeholder] : undefined;
      if (typeof value !== 'string' || value === '') {
        absent.push(placeholder);
        return '';
      }
      return value;
    });
    if (absent.length > 0) {
      for (const placeholder of absent) missing.add(placeholder);
      // JSON-escaped so that a name carrying CR/LF cannot forge log lines.
      options.logger?.warn('Left out MCP header: no value for its placeholders', {
        header: JSON.stringify(name),
        placeholders: absent,
      });
      continue;
    }
    headers[name] = rendered;
  }
  return { headers, missing: [...missing] };
}
