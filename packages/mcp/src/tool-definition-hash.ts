import type { McpToolDescriptor } from './mcp-tool-descriptor.ts';

/**
 * A stable SHA-256 (hex) of what the model is shown of a tool: name, description and input schema, with object keys
 * sorted so that key order on the wire does not matter. Store it when an admin approves a tool; a different hash
 * later means the server changed the definition (a "rug pull") and the tool must not be offered until re-approved.
 */
export async function toolDefinitionHash(descriptor: McpToolDescriptor): Promise<string> {
  const canonical = canonicalJson({
    name: descriptor.name,
    description: descriptor.description,
    inputSchema: descriptor.inputSchema,
  });
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonical));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
