/** The image shapes the model may ask for. */
export const IMAGE_SHAPES = ['square', 'landscape', 'portrait'] as const;

/** One of {@link IMAGE_SHAPES}. */
export type ImageShape = (typeof IMAGE_SHAPES)[number];

/** The `size` sent for each shape: the sizes of OpenAI's GPT image models. DALL·E 3 wants 1792x1024 / 1024x1792. */
export const DEFAULT_IMAGE_SIZES: Readonly<Record<ImageShape, string>> = {
  square: '1024x1024',
  landscape: '1536x1024',
  portrait: '1024x1536',
};
