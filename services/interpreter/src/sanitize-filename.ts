/** Makes a client- or code-supplied filename safe for storage metadata and Content-Disposition. */
export function sanitizeFilename(name: string | null): string {
  const cleaned = (name ?? '')
    .replace(/[\x00-\x1f/\\:*?"<>|]/g, '_')
    .replace(/^\.+|\.+$/g, '')
    .slice(0, 200);
  return cleaned || 'file';
}
