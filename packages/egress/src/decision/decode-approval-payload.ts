import { headerValue } from './apply-injected-headers.ts';
import type { EgressHeader } from './egress-request.ts';

/**
 * The body as the approval card shows it: a JSON object as is, a JSON array as `{batch: [...]}`, form data as an
 * object (single values unwrapped); undefined for anything else.
 */
export function decodeApprovalPayload(
  headers: readonly EgressHeader[],
  body: Uint8Array | undefined,
): unknown {
  if (body === undefined || body.length === 0) return undefined;
  const type = (headerValue(headers, 'content-type') ?? '').toLowerCase();
  const text = new TextDecoder().decode(body);
  if (type.includes('application/x-www-form-urlencoded')) {
    const fields: Record<string, string | string[]> = {};
    for (const [key, value] of new URLSearchParams(text)) {
      const existing = fields[key];
      fields[key] =
        existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
    }
    return fields;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed)) return { batch: parsed };
    if (typeof parsed === 'object' && parsed !== null) return parsed;
  } catch {
    return undefined;
  }
  return undefined;
}
