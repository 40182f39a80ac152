import { defineTool } from '@toolbus/core';
import type { FetchFunction, FileReference, Tool } from '@toolbus/spec';
import { omitUndefined, ToolExecutionError } from '@toolbus/spec';
import * as z from 'zod';
import type { GeneratedImageFileStore, GeneratedImageStorage, StoredImage } from './generated-image-store.ts';
import { DEFAULT_IMAGE_SIZES, IMAGE_SHAPES, type ImageShape } from './image-shape.ts';
import { requestImageGeneration } from './request-image-generation.ts';

/** Options for {@link createGenerateImageTool}. Give `storage` or `fileStore`. */
export interface GenerateImageToolOptions {
  /** The fetch for the images API and for image URLs it answers with: the guarded fetch. */
  readonly fetch: FetchFunction;
  /** The API root, e.g. `https://api.openai.com/v1`. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer …`; omitted when absent (local servers). */
  readonly apiKey?: string;
  /** The image model, e.g. `gpt-image-1`, `dall-e-3`. */
  readonly model: string;
  /** Stores images as the user's uploaded files (`@toolbus/storage`'s `Storage` fits); needs a known user. */
  readonly storage?: GeneratedImageStorage;
  /** The organisation images stored through `storage` belong to (the server's turn); absent: the default one. */
  readonly organizationId?: string;
  /** Any other store, when images should not become the user's files. */
  readonly fileStore?: GeneratedImageFileStore;
  /** `size` per shape. Default {@link DEFAULT_IMAGE_SIZES}. */
  readonly sizes?: Readonly<Record<ImageShape, string>>;
  /**
   * `response_format` sent. Default `b64_json`, except for OpenAI's GPT image models (`gpt-image-*`), which always
   * answer in base64 and do not take the parameter; `null` never sends it.
   */
  readonly responseFormat?: 'b64_json' | 'url' | null;
  /**
   * Interval of `image-generation-heartbeat` packets while waiting. Default 5,000 ms: often enough that a client or
   * proxy does not take a minute-long render for a dead stream.
   */
  readonly heartbeatMs?: number;
  /** Largest image accepted. Default 25 MiB. */
  readonly maxImageBytes?: number;
  /** Largest JSON answer accepted (base64 is a third larger than the image). Default 40 MiB. */
  readonly maxResponseBytes?: number;
  /** Per-call timeout; the runner's default when absent. */
  readonly timeoutMs?: number;
}

// Made once: the tool is made per turn, and its JSON schema is converted once per schema object.
const generateImageParameters = z.object({
  prompt: z.string().trim().min(1).max(4000).describe('A detailed description of the image'),
  shape: z.enum(IMAGE_SHAPES).optional().describe('square (default), landscape or portrait'),
});

/**
 * `generate_image`: makes one image from a prompt through an OpenAI-compatible images API, stores it as a file,
 * streams a heartbeat every `heartbeatMs` while the provider works and `image-generation-final` when it is saved,
 * and gives the model `[{"file_id", "revised_prompt"}]`. Provider failures (content-policy refusals, bad
 * credentials, outages, answers that are not images) are `ToolExecutionError`s that also send an error packet to
 * the UI. A stopping tool (core's registry): the turn ends after it with a short description, no more tools.
 */
export function createGenerateImageTool(options: GenerateImageToolOptions): Tool {
  if ((options.storage === undefined) === (options.fileStore === undefined)) {
    throw new TypeError('createGenerateImageTool needs exactly one of `storage` and `fileStore`.');
  }
  const sizes = options.sizes ?? DEFAULT_IMAGE_SIZES;
  const heartbeatMs = options.heartbeatMs ?? 5000;
  const responseFormat =
    options.responseFormat === undefined
      ? options.model.startsWith('gpt-image')
        ? undefined
        : 'b64_json'
      : (options.responseFormat ?? undefined);
  return defineTool({
    name: 'generate_image',
    displayName: 'Image Generation',
    stopsTurn: true,
    description:
      'Generate an image from a text description. Write a detailed prompt (subject, style, composition, colours). ' +
      'After it, describe the image briefly; do not include links.',
    parameters: generateImageParameters,
    exampleArguments: { prompt: 'A watercolour lighthouse on a cliff at dawn', shape: 'landscape' },
    timeoutMs: options.timeoutMs,
    async run({ prompt, shape = 'square' }, context) {
      const userId = context.userId;
      if (options.storage !== undefined && userId === undefined) {
        throw new ToolExecutionError({
          code: 'image_user_unknown',
          emitErrorPacket: true,
          message:
            'Images are saved as the user’s files, and this chat has no signed-in user. Nothing was generated.',
        });
      }
      const toolCallId = context.call.id;
      const heartbeat = setInterval(
        () => context.emitter.emit({ type: 'image-generation-heartbeat', toolCallId }),
        heartbeatMs,
      );
      let generated: Awaited<ReturnType<typeof requestImageGeneration>>;
      try {
        generated = await requestImageGeneration({
          fetch: options.fetch,
          baseUrl: options.baseUrl,
          ...omitUndefined({ apiKey: options.apiKey || undefined }),
          model: options.model,
          prompt,
          size: sizes[shape],
          ...omitUndefined({ responseFormat }),
          maxImageBytes: options.maxImageBytes ?? 25 * 1024 * 1024,
          maxResponseBytes: options.maxResponseBytes ?? 40 * 1024 * 1024,
          signal: context.signal,
        });
      } finally {
        clearInterval(heartbeat);
      }
      context.signal.throwIfAborted();
      const images: (FileReference & { readonly revisedPrompt?: string })[] = [];
      for (const [index, image] of generated.entries()) {
        const file = {
          name: `generated-image${generated.length > 1 ? `-${index + 1}` : ''}.${image.extension}`,
          mediaType: image.mediaType,
          content: image.bytes,
        };
        const stored: StoredImage =
          options.storage !== undefined && userId !== undefined
            ? await options.storage.files.put(
                omitUndefined({ ...file, userId, organizationId: options.organizationId }),
              )
            : await (options.fileStore as GeneratedImageFileStore).save(omitUndefined({ ...file, userId }));
        images.push(
          omitUndefined({
            fileId: stored.id,
            name: stored.name,
            mediaType: stored.mediaType,
            sizeBytes: stored.sizeBytes,
            revisedPrompt: image.revisedPrompt,
          }),
        );
      }
      context.emitter.emit({ type: 'image-generation-final', toolCallId, images });
      return {
        llmFacing: JSON.stringify(
          images.map((image) => ({ file_id: image.fileId, revised_prompt: image.revisedPrompt ?? prompt })),
        ),
        rich: { type: 'images', images: images.map((image) => ({ ...image, shape })) },
      };
    },
  });
}
