/** Image formats an images API returns, by their first bytes. */
const signatures: readonly {
  readonly mediaType: string;
  readonly extension: string;
  matches(bytes: Uint8Array): boolean;
}[] = [
  {
    mediaType: 'image/png',
    extension: 'png',
    matches: (bytes) => startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  },
  { mediaType: 'image/jpeg', extension: 'jpg', matches: (bytes) => startsWith(bytes, [0xff, 0xd8, 0xff]) },
  {
    mediaType: 'image/webp',
    extension: 'webp',
    matches: (bytes) =>
      startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes.subarray(8), [0x57, 0x45, 0x42, 0x50]),
  },
  {
    mediaType: 'image/gif',
    extension: 'gif',
    matches: (bytes) => startsWith(bytes, [0x47, 0x49, 0x46, 0x38]),
  },
];

/**
 * The media type and file extension of PNG, JPEG, WebP or GIF bytes, or undefined for anything else. The
 * provider's answer is not trusted to say what it sent: the bytes decide what gets stored as an image.
 */
export function sniffImageType(
  bytes: Uint8Array,
): { readonly mediaType: string; readonly extension: string } | undefined {
  const found = signatures.find((signature) => signature.matches(bytes));
  return found && { mediaType: found.mediaType, extension: found.extension };
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((value, index) => bytes[index] === value);
}
