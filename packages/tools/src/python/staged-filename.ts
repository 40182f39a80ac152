const maxNameLength = 200;

/**
 * A chat file's name made safe as a workspace path on any file system: control characters and `/ \ : * ? " < > |`
 * become `_`, leading and trailing dots go, an empty name becomes `file`, and at most 200 characters remain with
 * the extension kept.
 */
export function sanitizeStagedFilename(name: string): string {
  let cleaned = name.replace(/[\x00-\x1f/\\:*?"<>|]/g, '_').replace(/^\.+|\.+$/g, '');
  if (!cleaned) cleaned = 'file';
  if (cleaned.length <= maxNameLength) return cleaned;
  const dot = cleaned.lastIndexOf('.');
  const extension = dot > 0 && cleaned.length - dot <= 20 ? cleaned.slice(dot) : '';
  return cleaned.slice(0, maxNameLength - extension.length) + extension;
}

/** `name` unless taken, else `name_1.ext`, `name_2.ext`, ...; records the name it returns in `taken`. */
export function uniqueStagedFilename(name: string, taken: Set<string>): string {
  let candidate = name;
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const extension = dot > 0 ? name.slice(dot) : '';
  for (let index = 1; taken.has(candidate); index += 1) candidate = `${stem}_${index}${extension}`;
  taken.add(candidate);
  return candidate;
}
