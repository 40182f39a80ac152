import { basename, extname } from 'node:path';
import { omitUndefined, ToolbusError } from '@toolbus/spec';
import { extractText, getDocumentProxy } from 'unpdf';
import { htmlToMarkdown } from './html-to-markdown.ts';

/** A document's readable text and title. */
export interface ExtractedDocument {
  readonly title: string;
  readonly text: string;
  readonly mediaType: string;
}

/** File extensions the index reads, with their media types. */
export const SUPPORTED_DOCUMENT_TYPES: ReadonlyMap<string, string> = new Map([
  ['.md', 'text/markdown'],
  ['.markdown', 'text/markdown'],
  ['.txt', 'text/plain'],
  ['.text', 'text/plain'],
  ['.html', 'text/html'],
  ['.htm', 'text/html'],
  ['.pdf', 'application/pdf'],
  ['.json', 'application/json'],
]);

/**
 * Extracts readable text from a document's bytes by media type: Markdown and text as they are (the first Markdown
 * heading is the title), HTML through Readability, PDF through PDF.js (unpdf), JSON as `path: value` lines.
 * Unreadable input is a typed error naming the document, never a crash.
 */
export async function extractDocumentText(options: {
  readonly bytes: Uint8Array;
  readonly mediaType: string;
  readonly name: string;
  readonly url?: string;
}): Promise<ExtractedDocument> {
  const fallbackTitle = basename(options.name, extname(options.name)) || options.name;
  const mediaType = options.mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
  try {
    if (mediaType === 'application/pdf') {
      // Verbosity 0: errors only. PDF.js warns on console for every odd font or xref, which is noise on a terminal.
      const pdf = await getDocumentProxy(new Uint8Array(options.bytes), { verbosity: 0 });
      const { text } = await extractText(pdf, { mergePages: true });
      const info = (await pdf.getMetadata().catch(() => undefined))?.info as { Title?: unknown } | undefined;
      const title = typeof info?.Title === 'string' && info.Title.trim() ? info.Title.trim() : fallbackTitle;
      await pdf.cleanup?.();
      return { title, text: String(text), mediaType };
    }
    const decoded = new TextDecoder('utf-8', { fatal: false }).decode(options.bytes);
    if (mediaType === 'text/html' || mediaType === 'application/xhtml+xml') {
      const page = htmlToMarkdown(decoded, omitUndefined({ url: options.url || undefined }));
      return { title: page.title || fallbackTitle, text: page.text, mediaType };
    }
    if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
      return { title: fallbackTitle, text: jsonToLines(JSON.parse(decoded)), mediaType };
    }
    const heading = /^#{1,3}\s+(.+)$/m.exec(decoded);
    return {
      title: mediaType === 'text/markdown' && heading?.[1] ? heading[1].trim() : fallbackTitle,
      text: decoded,
      mediaType,
    };
  } catch (error) {
    throw new ToolbusError({
      code: 'document_unreadable',
      message: `Could not read ${options.name} as ${mediaType || 'text'}: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
}

function jsonToLines(value: unknown): string {
  const lines: string[] = [];
  const walk = (node: unknown, path: string, depth: number) => {
    if (lines.length > 50_000 || depth > 32) return;
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) walk(item, `${path}[${index}]`, depth + 1);
    } else if (node && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) walk(item, path ? `${path}.${key}` : key, depth + 1);
    } else lines.push(`${path || '(value)'}: ${String(node)}`);
  };
  walk(value, '', 0);
  return lines.join('\n');
}
