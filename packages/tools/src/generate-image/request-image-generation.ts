import { Buffer } from 'node:buffer';
import { type FetchFunction, omitUndefined, ToolbusError, ToolExecutionError } from '@toolbus/spec';
import * as z from 'zod';
import { imageProviderError } from './image-provider-error.ts';
import { readBodyLimited } from './read-body-limited.ts';
import { sniffImageType } from './sniff-image-type.ts';

/** One image the provider made, checked to be PNG, JPEG, WebP or GIF. */
export interface GeneratedImageBytes {
  readonly bytes: Uint8Array;
  readonly mediaType: string;
  readonly extension: string;
  readonly revisedPrompt?: string;
}

const imagesAnswer = z.object({
  data: z
    .array(
      z.object({
        b64_json: z.string().optional(),
        url: z.string().optional(),
        revised_prompt: z.string().optional(),
      }),
    )
    .min(1),
});
const base64Pattern = /^[A-Za-z0-9+/]*={0,2}$/;
const maxErrorBodyBytes = 64 * 1024;

/**
 * Calls an OpenAI-compatible images API (`POST {baseUrl}/images/generations` with `{model, prompt, size, n: 1}`
 * and `response_format` when given) and returns the images. Answers may carry `b64_json` or a `url`; a URL is
 * downloaded through the same fetch (so the SSRF guard applies to where the provider points us). HTTP errors,
 * unreachable servers and answers that are not images become `ToolExecutionError`s with an error packet; an abort
 * is rethrown as the signal's reason.
 */
export async function requestImageGeneration(options: {
  readonly fetch: FetchFunction;
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly model: string;
  readonly prompt: string;
  readonly size: string;
  readonly responseFormat?: 'b64_json' | 'url';
  readonly maxResponseBytes: number;
  readonly maxImageBytes: number;
  readonly signal: AbortSignal;
}): Promise<GeneratedImageBytes[]> {
  const { signal } = options;
  const endpoint = `${options.baseUrl.replace(/\/+$/, '')}/images/generations`;
  const response = await send(options, () =>
    options.fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: options.model,
        prompt: options.prompt,
        size: options.size,
        n: 1,
        ...omitUndefined({ response_format: options.responseFormat }),
      }),
      signal,
    }),
  );
  if (!response.ok) {
    const body = await readBodyLimited(response, maxErrorBodyBytes).catch(() => new Uint8Array());
    throw imageProviderError({ status: response.status, body: new TextDecoder().decode(body) });
  }
  const raw = await readBodyLimited(response, options.maxResponseBytes);
  let answer: z.infer<typeof imagesAnswer>;
  try {
    answer = imagesAnswer.parse(JSON.parse(new TextDecoder().decode(raw)));
  } catch (cause) {
    throw invalidAnswer('its answer is not an images response with at least one image', cause);
  }
  const images: GeneratedImageBytes[] = [];
  for (const item of answer.data) {
    const bytes =
      item.b64_json !== undefined
        ? decodeBase64(item.b64_json, options.maxImageBytes)
        : item.url !== undefined
          ? await download({ ...options, url: item.url })
          : undefined;
    if (bytes === undefined) throw invalidAnswer('an image has neither b64_json nor url');
    const type = sniffImageType(bytes);
    if (type === undefined) throw invalidAnswer('what it sent is not a PNG, JPEG, WebP or GIF image');
    images.push({
      bytes,
      ...type,
      ...(item.revised_prompt?.trim() ? { revisedPrompt: item.revised_prompt.trim() } : {}),
    });
  }
  return images;
}

async function download(options: {
  readonly fetch: FetchFunction;
  readonly url: string;
  readonly maxImageBytes: number;
  readonly signal: AbortSignal;
}): Promise<Uint8Array> {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch (cause) {
    throw invalidAnswer('the image URL is not a URL', cause);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw invalidAnswer('the image URL is not http(s)');
  const response = await send(options, () => options.fetch(url, { signal: options.signal }));
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new ToolExecutionError({
      code: 'image_download_failed',
      emitErrorPacket: true,
      message: `The generated image could not be downloaded (HTTP ${response.status}). Tell the user.`,
    });
  }
  return readBodyLimited(response, options.maxImageBytes);
}

/** Runs a fetch; a refusal or network failure becomes a failure the model can read, an abort is rethrown. */
async function send(
  options: { readonly signal: AbortSignal },
  request: () => Promise<Response>,
): Promise<Response> {
  try {
    return await request();
  } catch (cause) {
    options.signal.throwIfAborted();
    const reason = ToolbusError.isInstance(cause) ? ` (${cause.code})` : '';
    throw new ToolExecutionError({
      code: 'image_provider_unreachable',
      emitErrorPacket: true,
      message: `The image service could not be reached${reason}. Tell the user image generation is not working right now.`,
      cause,
    });
  }
}

function decodeBase64(text: string, maxBytes: number): Uint8Array {
  const compact = text.replace(/\s+/g, '');
  if (!base64Pattern.test(compact)) throw invalidAnswer('b64_json is not base64');
  if ((compact.length / 4) * 3 > maxBytes + 3) {
    throw new ToolExecutionError({
      code: 'image_answer_too_large',
      emitErrorPacket: true,
      message: `The image provider sent an image over ${maxBytes} bytes; it was not stored.`,
    });
  }
  return new Uint8Array(Buffer.from(compact, 'base64'));
}

function invalidAnswer(detail: string, cause?: unknown): ToolExecutionError {
  return new ToolExecutionError({
    code: 'image_answer_invalid',
    emitErrorPacket: true,
    message: `The image provider's answer could not be used: ${detail}.`,
    cause,
  });
}
