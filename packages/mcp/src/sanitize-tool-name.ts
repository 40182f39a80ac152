const maxLength = 64;

/**
 * Makes a name valid for every LLM provider (`^[a-zA-Z0-9_-]{1,64}$`): other characters become `_`; a name that
 * must be cut keeps a short hash of the whole so that two long names sharing a prefix stay distinct.
 */
export function sanitizeToolName(name: string): string {
  const replaced = name.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (replaced.length === 0) return 'tool';
  if (replaced.length <= maxLength) return replaced;
  return `${replaced.slice(0, maxLength - 9)}_${fnv1a(name)}`;
}

/** The collision-safe name `mcp_{server}_{tool}`, sanitised. The assembly applies it when names collide. */
export function disambiguatedMcpToolName(options: {
  readonly serverName: string;
  readonly toolName: string;
}): string {
  return sanitizeToolName(`mcp_${options.serverName}_${options.toolName}`);
}

function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
