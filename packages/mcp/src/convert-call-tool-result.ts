import type { FileReference, RichResponse } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { McpFileStore } from './mcp-file-store.ts';

/** One content block of a `tools/call` result, as on the wire (unknown block types are tolerated). */
export type McpContentBlock = { readonly type: string; readonly [key: string]: unknown };

/** Options for {@link convertCallToolResult}. */
export interface ConvertCallToolResultOptions {
  readonly content: readonly McpContentBlock[];
  readonly structuredContent?: unknown;
  /** Keeps images, audio and blob resources; without one they are described to the model but not kept. */
  readonly fileStore?: McpFileStore | undefined;
  /** Binary blocks larger than this (decoded) are not kept. Default 20 MiB. */
  readonly maxFileBytes?: number;
  /** The model string is cut here, with a note saying so (a hostile or chatty server cannot flood the context). Default 100,000. */
  readonly maxResultChars?: number | undefined;
}

/** What the model reads, and the rich object for storage and the UI. */
export interface ConvertedToolResult {
  readonly llmFacing: string;
  readonly rich: Extract<RichResponse, { type: 'custom-tool' }>;
}

const defaultMaxFileBytes = 20 * 1024 * 1024;
const defaultMaxResultChars = 100_000;

/**
 * Turns MCP result content into a model string (text blocks, text resources and resource links, joined by blank
 * lines; binary blocks as short notes naming the kept file) and a `custom-tool` rich object (blocks with binary data
 * replaced by file references). With no text at all, the structured content is shown to the model as JSON.
 */
export async function convertCallToolResult(
  options: ConvertCallToolResultOptions,
): Promise<ConvertedToolResult> {
  const maxFileBytes = options.maxFileBytes ?? defaultMaxFileBytes;
  const parts: string[] = [];
  const files: FileReference[] = [];
  const blocks: unknown[] = [];
  let binaryCount = 0;
  const keep = async (data: unknown, mediaType: string, name: string): Promise<FileReference | string> => {
    if (typeof data !== 'string') return 'malformed data';
    // base64 decodes to 3/4 of its length: refuse before decoding a hostile payload.
    if ((data.length * 3) / 4 > maxFileBytes) return `larger than ${maxFileBytes} bytes, not kept`;
    if (options.fileStore === undefined) return 'not kept';
    let bytes: Uint8Array;
    try {
      bytes = Uint8Array.from(atob(data), (character) => character.charCodeAt(0));
    } catch {
      return 'malformed data';
    }
    const file = await options.fileStore.save({ data: bytes, mediaType, name });
    files.push(file);
    return file;
  };
  for (const block of options.content) {
    switch (block.type) {
      case 'text': {
        const text = typeof block.text === 'string' ? block.text : '';
        parts.push(text);
        blocks.push({ type: 'text', text });
        break;
      }
      case 'image':
      case 'audio': {
        binaryCount += 1;
        const mediaType = typeof block.mimeType === 'string' ? block.mimeType : 'application/octet-stream';
        const kept = await keep(
          block.data,
          mediaType,
          `${block.type}-${binaryCount}${extensionOf(mediaType)}`,
        );
        parts.push(describeBinary(block.type, mediaType, kept));
        blocks.push({
          type: block.type,
          mediaType,
          ...(typeof kept === 'string' ? { note: kept } : { file: kept }),
        });
        break;
      }
      case 'resource': {
        const resource = (block.resource ?? {}) as Record<string, unknown>;
        const uri = typeof resource.uri === 'string' ? resource.uri : '';
        const mediaType =
          typeof resource.mimeType === 'string' ? resource.mimeType : 'application/octet-stream';
        if (typeof resource.text === 'string') {
          parts.push(`resource: ${uri}\n${resource.text}`);
          blocks.push({ type: 'resource', uri, mediaType, text: resource.text });
        } else {
          binaryCount += 1;
          const kept = await keep(
            resource.blob,
            mediaType,
            fileNameFromUri(uri) ?? `resource-${binaryCount}`,
          );
          parts.push(`${describeBinary('resource', mediaType, kept)} (${uri})`);
          blocks.push({
            type: 'resource',
            uri,
            mediaType,
            ...(typeof kept === 'string' ? { note: kept } : { file: kept }),
          });
        }
        break;
      }
      case 'resource_link': {
        const fields = ['uri', 'name', 'title', 'description', 'mimeType'] as const;
        const link: Record<string, string> = {};
        for (const field of fields)
          if (typeof block[field] === 'string') link[field] = block[field] as string;
        const description = [`link: ${link.uri ?? ''}`];
        if (link.title ?? link.name) description.push(`title: ${link.title ?? link.name}`);
        if (link.description) description.push(`description: ${link.description}`);
        parts.push(description.join(' '));
        blocks.push({ type: 'resource_link', ...link });
        break;
      }
      default:
        blocks.push({ type: block.type, note: 'unsupported content type' });
    }
  }
  const hasText = parts.some((part) => part.length > 0);
  const structured = options.structuredContent;
  if (!hasText && structured !== undefined) parts.push(JSON.stringify(structured));
  const onlyImages =
    blocks.length > 0 && blocks.every((block) => (block as { type: string }).type === 'image');
  const responseType = onlyImages ? 'image' : structured !== undefined ? 'json' : 'text';
  const full = parts.filter((part) => part.length > 0).join('\n\n');
  const maxResultChars = options.maxResultChars ?? defaultMaxResultChars;
  const llmFacing =
    full.length <= maxResultChars
      ? full
      : `${full.slice(0, maxResultChars)}\n\n[result cut at ${maxResultChars} of ${full.length} characters]`;
  return {
    llmFacing,
    rich: {
      type: 'custom-tool',
      responseType,
      data: omitUndefined({ content: blocks, structuredContent: structured }),
      files,
    },
  };
}

function describeBinary(kind: string, mediaType: string, kept: FileReference | string): string {
  return typeof kept === 'string'
    ? `[${kind}: ${mediaType}, ${kept}]`
    : `[${kind}: ${mediaType}, kept as file ${kept.fileId}]`;
}

function extensionOf(mediaType: string): string {
  const subtype = mediaType.split('/')[1]?.split(/[+;]/)[0];
  return subtype !== undefined && /^[a-z0-9]{1,8}$/.test(subtype) ? `.${subtype}` : '';
}

function fileNameFromUri(uri: string): string | undefined {
  const last = uri.split(/[/\\]/).pop();
  return last !== undefined && last.length > 0 && last.length <= 200 ? last : undefined;
}
