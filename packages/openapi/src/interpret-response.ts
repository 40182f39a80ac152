import type { FileReference, ToolResponse } from '@toolbus/spec';
import { readLimitedBody } from '@toolbus/spec';
import type { OpenApiFileStore } from './file-store.ts';

/** The kinds of answer a custom tool reports (the `custom-tool` rich response's `responseType`). */
export type OpenApiResponseType = 'json' | 'text' | 'csv' | 'image';

/** A successful answer turned into what the model reads and what the UI stores. */
export interface InterpretedResponse {
  readonly response: ToolResponse;
  readonly responseType: OpenApiResponseType;
  readonly data: unknown;
  readonly files: readonly FileReference[];
}

/** Options for {@link interpretResponse}. */
export interface InterpretResponseOptions {
  readonly response: Response;
  readonly toolName: string;
  /** Cap for JSON and text kept for the model (bytes read). */
  readonly maxResponseBytes: number;
  /** Cap for files (images, CSV, binaries); larger answers fail. */
  readonly maxFileBytes: number;
  readonly fileStore: OpenApiFileStore;
  /** Removes credential values from text the API sent back. */
  readonly redact: (text: string) => string;
}

/** Below this many characters JSON is indented for readability; above, compact to save the model's context. */
const indentBelowChars = 4096;
const csvPreviewLines = 20;

/**
 * Interprets a 2xx answer by its content type. JSON: parsed and shown compact (indented when small), cut at
 * `maxResponseBytes` with a note telling the model how to ask for less. Text: the same cap. CSV and images: kept
 * as files (the model gets a reference, and for CSV the first lines); other binaries: kept as files too. Every
 * text is redacted of credential values before the model or the UI sees it.
 */
export async function interpretResponse(options: InterpretResponseOptions): Promise<InterpretedResponse> {
  const { response, toolName } = options;
  const contentType = (response.headers.get('content-type') ?? '').toLowerCase();
  const mediaType = contentType.split(';')[0]?.trim() ?? '';
  const kind = classify(mediaType);
  if (kind === 'csv' || kind === 'image' || kind === 'binary') {
    const { bytes, truncated } = await readLimitedBody(response, options.maxFileBytes);
    if (truncated) {
      return textResult(
        `The API answered with a ${mediaType} file larger than ${options.maxFileBytes} bytes, which is over the limit; it was not kept.`,
        'text',
        null,
      );
    }
    const name = fileName(response, toolName, mediaType);
    if (kind === 'csv') {
      const text = options.redact(new TextDecoder().decode(bytes));
      const reference = await options.fileStore.save({
        name,
        mediaType: mediaType || 'text/csv',
        bytes: new TextEncoder().encode(text),
      });
      const lines = text.split(/\r?\n/);
      const preview = lines.slice(0, csvPreviewLines).join('\n');
      const more =
        lines.length > csvPreviewLines ? `\n[${lines.length - csvPreviewLines} more lines in the file]` : '';
      return fileResult(
        `The API answered with a CSV file (${reference.name}, file id ${reference.fileId}). First lines:\n${preview}${more}`,
        'csv',
        reference,
      );
    }
    const reference = await options.fileStore.save({
      name,
      mediaType: mediaType || 'application/octet-stream',
      bytes,
    });
    const what = kind === 'image' ? 'an image' : `a ${mediaType || 'binary'} file`;
    return fileResult(
      `The API answered with ${what} (${reference.name}, ${bytes.byteLength} bytes, file id ${reference.fileId}); it is attached for the user.`,
      kind === 'image' ? 'image' : 'text',
      reference,
    );
  }
  const { bytes, truncated } = await readLimitedBody(response, options.maxResponseBytes);
  const text = options.redact(new TextDecoder().decode(bytes));
  if (bytes.byteLength === 0) {
    return textResult(`The API answered ${response.status} with an empty body (success).`, 'text', '');
  }
  const note = truncated ? truncationNote(options.maxResponseBytes) : '';
  if (kind === 'json' || (kind === 'unknown' && /^\s*[[{]/.test(text))) {
    if (!truncated) {
      const parsed = tryParseJson(text);
      if (parsed.ok) {
        const indented = JSON.stringify(parsed.value, null, 2);
        const shown = indented.length <= indentBelowChars ? indented : JSON.stringify(parsed.value);
        return textResult(shown, 'json', parsed.value);
      }
    }
    // Cut JSON cannot be parsed; the model still reads the start, and the note says it was cut.
    return textResult(`${text}${note}`, 'json', text);
  }
  return textResult(`${text}${note}`, 'text', text);
}

function textResult(
  llmFacing: string,
  responseType: OpenApiResponseType,
  data: unknown,
): InterpretedResponse {
  return {
    response: { llmFacing, rich: { type: 'custom-tool', responseType, data, files: [] } },
    responseType,
    data,
    files: [],
  };
}

function fileResult(
  llmFacing: string,
  responseType: OpenApiResponseType,
  reference: FileReference,
): InterpretedResponse {
  const data = { fileId: reference.fileId, name: reference.name, mediaType: reference.mediaType };
  return {
    response: { llmFacing, rich: { type: 'custom-tool', responseType, data, files: [reference] } },
    responseType,
    data,
    files: [reference],
  };
}

function truncationNote(maxBytes: number): string {
  return `\n[truncated: the answer was longer than ${maxBytes} bytes and was cut here. Ask for less (filters, fewer fields, pagination such as per_page or limit) to see the rest.]`;
}

function classify(mediaType: string): 'json' | 'text' | 'csv' | 'image' | 'binary' | 'unknown' {
  if (mediaType === '') return 'unknown';
  if (mediaType === 'text/csv' || mediaType === 'application/csv') return 'csv';
  if (mediaType.startsWith('image/')) return 'image';
  if (mediaType === 'application/json' || mediaType.endsWith('+json') || mediaType.endsWith('/json'))
    return 'json';
  if (
    mediaType.startsWith('text/') ||
    mediaType.endsWith('+xml') ||
    mediaType.endsWith('/xml') ||
    mediaType === 'application/javascript' ||
    mediaType === 'application/x-www-form-urlencoded' ||
    mediaType === 'application/yaml' ||
    mediaType === 'application/x-ndjson'
  ) {
    return 'text';
  }
  return 'binary';
}

const extensions: Record<string, string> = {
  'text/csv': 'csv',
  'application/csv': 'csv',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'application/pdf': 'pdf',
};

function fileName(response: Response, toolName: string, mediaType: string): string {
  const disposition = response.headers.get('content-disposition') ?? '';
  const match = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition);
  const given = match?.[1] ? safeName(decodeSafely(match[1])) : '';
  if (given !== '') return given;
  return `${toolName}.${extensions[mediaType] ?? 'bin'}`;
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A file name from a hostile header: no directories, no control characters, bounded. */
function safeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  return base
    .replace(/[^a-zA-Z0-9._-]+/g, '_')
    .replace(/^\.+/, '')
    .slice(0, 100);
}

function tryParseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
