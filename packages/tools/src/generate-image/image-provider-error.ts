import { ToolExecutionError } from '@toolbus/spec';

/** OpenAI's error codes for a prompt its safety system refused (DALL·E 3; GPT image models). */
const contentPolicyCodes = new Set(['content_policy_violation', 'moderation_blocked']);
const maxProviderMessageChars = 300;

/**
 * Turns an images API's HTTP error into a failure the model and the UI can act on (with an error packet). The
 * provider's `error.code` decides the kind, never its message text; the message is quoted, flattened and cut,
 * and never for 401/403, whose message may echo part of the key.
 */
export function imageProviderError(options: {
  readonly status: number;
  readonly body: string;
}): ToolExecutionError {
  const { status } = options;
  const error = readOpenAiError(options.body);
  const said = error.message ? ` The provider said: "${error.message}"` : '';
  if (status === 400 && error.code !== undefined && contentPolicyCodes.has(error.code)) {
    return new ToolExecutionError({
      code: 'image_content_policy',
      emitErrorPacket: true,
      message: `The image provider refused this prompt under its content policy.${said} Tell the user the image could not be made; a different description may work. Do not retry the same prompt.`,
    });
  }
  if (status === 401 || status === 403) {
    return new ToolExecutionError({
      code: 'image_provider_unauthorized',
      emitErrorPacket: true,
      message: `The image provider refused the configured credentials (HTTP ${status}). Tell the user image generation is not set up correctly.`,
    });
  }
  if (status === 429) {
    return new ToolExecutionError({
      code: 'image_rate_limited',
      emitErrorPacket: true,
      message: `The image provider is rate limiting requests (HTTP 429).${said} Tell the user to try again later.`,
    });
  }
  if (status >= 400 && status < 500) {
    return new ToolExecutionError({
      code: 'image_request_invalid',
      emitErrorPacket: true,
      message: `The image provider rejected the request (HTTP ${status}).${said}`,
    });
  }
  return new ToolExecutionError({
    code: 'image_provider_error',
    emitErrorPacket: true,
    message: `The image provider failed (HTTP ${status}). Tell the user image generation is not working right now.`,
  });
}

/** `{ error: { code, message } }` of an OpenAI-style error body; anything else gives nothing. */
function readOpenAiError(body: string): { readonly code?: string; readonly message?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return {};
  }
  const error = (parsed as { error?: unknown } | null)?.error;
  if (typeof error !== 'object' || error === null) return {};
  const { code, message } = error as { code?: unknown; message?: unknown };
  return {
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof message === 'string' && message.trim() !== '' ? { message: flatten(message) } : {}),
  };
}

function flatten(text: string): string {
  const flat = text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029"]/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
  return flat.length > maxProviderMessageChars ? `${flat.slice(0, maxProviderMessageChars)}…` : flat;
}
