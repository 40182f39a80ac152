import { extractDocumentText } from '../content/extract-document-text.ts';

/** What reading a file as text gave: its text, or why it is not text. */
export type FileTextOutcome =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'not-text'; readonly mediaType: string };

const textApplicationTypes = new Set([
  'application/json',
  'application/ld+json',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/typescript',
  'application/x-javascript',
  'application/x-typescript',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-toml',
  'application/sql',
  'application/x-sh',
  'application/x-shellscript',
  'application/x-python',
  'application/x-ndjson',
  'application/csv',
  'application/x-tex',
  'application/rtf',
]);
/** Types that are never text, whatever their bytes look like. */
const binaryTypePrefixes = ['image/', 'audio/', 'video/', 'font/', 'model/'];
/** Bytes looked at to decide whether a file of unknown type is text. */
const sniffBytes = 8192;

/**
 * Reads a file's bytes as text for paging: text types decoded as UTF-8 (invalid bytes replaced, a byte-order mark
 * dropped), PDF and HTML through {@link extractDocumentText} (the readable text, not the markup), and files of an
 * unknown or generic type (`application/octet-stream`, uploads without a type) only when their first bytes are
 * valid UTF-8 without NUL bytes. Images, archives and other binaries are `not-text`.
 */
export async function loadFileText(options: {
  readonly bytes: Uint8Array;
  readonly mediaType: string;
  readonly name: string;
}): Promise<FileTextOutcome> {
  const mediaType = options.mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType === 'application/pdf' || mediaType === 'text/html' || mediaType === 'application/xhtml+xml') {
    const document = await extractDocumentText({ bytes: options.bytes, mediaType, name: options.name });
    return { kind: 'text', text: document.text };
  }
  if (isTextType(mediaType)) return { kind: 'text', text: decodeUtf8(options.bytes) };
  if (binaryTypePrefixes.some((prefix) => mediaType.startsWith(prefix)))
    return { kind: 'not-text', mediaType };
  if (looksLikeText(options.bytes)) return { kind: 'text', text: decodeUtf8(options.bytes) };
  return { kind: 'not-text', mediaType: mediaType || 'binary' };
}

function isTextType(mediaType: string): boolean {
  return (
    mediaType.startsWith('text/') ||
    mediaType.endsWith('+json') ||
    mediaType.endsWith('+xml') ||
    textApplicationTypes.has(mediaType)
  );
}

function decodeUtf8(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

function looksLikeText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, sniffBytes);
  if (head.includes(0)) return false;
  try {
    // `stream: true` lets a multi-byte character cut at the sniff boundary pass; anything else invalid throws.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: head.length < bytes.length });
    return true;
  } catch {
    return false;
  }
}
