import { extractDocumentText } from '../content/extract-document-text.ts';
import { htmlToMarkdown } from '../content/html-to-markdown.ts';
import { OpenPageError } from './open-page-error.ts';

/** The readable text of a fetched page. */
export interface PageContent {
  readonly title: string;
  readonly text: string;
  readonly mediaType: string;
}

const htmlTypes = new Set(['text/html', 'application/xhtml+xml']);
const textTypes = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/x-ndjson',
]);
const unknownTypes = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/unknown']);

/**
 * Decides what the bytes are: the PDF signature wins over any declared type (servers mislabel PDFs), then the
 * declared HTML/text types, then, for an undeclared or generic type, a look at the first bytes (markup → HTML,
 * no control bytes → text). Anything else (images, archives, media) is refused.
 */
export function sniffMediaType(declared: string, bytes: Uint8Array): string | undefined {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
  if (head.startsWith('%PDF-')) return 'application/pdf';
  if (declared === 'application/pdf') return undefined;
  if (htmlTypes.has(declared)) return 'text/html';
  if (
    declared.startsWith('text/') ||
    textTypes.has(declared) ||
    declared.endsWith('+json') ||
    declared.endsWith('+xml')
  )
    return declared === 'text/html' ? 'text/html' : declared;
  if (!unknownTypes.has(declared)) return undefined;
  const start = head
    .replace(/^\uFEFF|^\u00EF\u00BB\u00BF/, '')
    .trimStart()
    .toLowerCase();
  if (/^<(!doctype html|html|head|body)\b/.test(start)) return 'text/html';
  // Binary data has control bytes other than tab, newline and carriage return.
  if (/[\u0000-\u0008\u000e-\u001a\u001c-\u001f]/.test(head)) return undefined;
  return 'text/plain';
}

function decode(bytes: Uint8Array, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/**
 * Turns a page's bytes into readable text: HTML through Readability to Markdown, PDF through PDF.js, text and JSON
 * as they are. Throws an {@link OpenPageError} for content it refuses or cannot read.
 */
export async function readPageContent(options: {
  readonly bytes: Uint8Array;
  readonly contentType: string;
  readonly url: string;
}): Promise<PageContent> {
  const [typePart, ...parameters] = options.contentType.split(';');
  const declared = (typePart ?? '').trim().toLowerCase();
  const charset = parameters
    .map((parameter) => /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(parameter)?.[1])
    .find((value) => value !== undefined);
  const mediaType = sniffMediaType(declared, options.bytes);
  if (mediaType === undefined) {
    throw new OpenPageError({
      code: 'unsupported_type',
      message: `unsupported content type ${declared || 'unknown'} (only web pages, PDFs and text are read)`,
    });
  }
  const name =
    new URL(options.url).pathname.split('/').filter(Boolean).pop() ?? new URL(options.url).hostname;
  if (mediaType === 'application/pdf') {
    try {
      const document = await extractDocumentText({ bytes: options.bytes, mediaType, name, url: options.url });
      return { title: document.title, text: document.text, mediaType };
    } catch (error) {
      throw new OpenPageError({
        code: 'unreadable',
        message: 'the PDF could not be read (damaged, encrypted or cut off)',
        cause: error,
      });
    }
  }
  // Without a charset in the header, an HTML page may declare it in a <meta> tag within its first bytes.
  const metaCharset =
    charset === undefined && mediaType === 'text/html'
      ? /<meta[^>]{0,200}charset\s*=\s*["']?([\w-]+)/i.exec(
          new TextDecoder('latin1').decode(options.bytes.subarray(0, 2048)),
        )?.[1]
      : undefined;
  const decoded = decode(options.bytes, charset ?? metaCharset);
  if (mediaType === 'text/html') {
    const page = htmlToMarkdown(decoded, { url: options.url });
    return { title: page.title || name, text: page.text, mediaType };
  }
  const heading = mediaType === 'text/markdown' ? /^#{1,3}\s+(.+)$/m.exec(decoded)?.[1]?.trim() : undefined;
  return { title: heading || name, text: decoded, mediaType };
}
