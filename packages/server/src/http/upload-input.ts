import type { Context } from 'hono';
import { z } from 'zod';
import { ServerError } from './server-error.ts';

/**
 * The `name` of an uploaded file: a bare file name, never a path. Whatever later writes the file somewhere (a
 * sandbox workspace, a download's `Content-Disposition`, an export) gets a name that cannot climb out of the
 * folder it is written to, so `../../etc/passwd`, `a/b`, `C:\x`, `..` and control characters are refused here.
 */
export const uploadFileName = z
  .string()
  .min(1)
  .max(255)
  .refine((name) => !/[/\\]/.test(name), 'a file name, not a path (no "/" or "\\")')
  .refine((name) => !/[\x00-\x1f\x7f]/.test(name), 'no control characters')
  .refine((name) => name !== '.' && name !== '..', 'a file name, not "." or ".."')
  .describe('The file name (no path)');

/** `type/subtype` as RFC 9110 spells a media type's tokens (parameters after `;` are dropped). */
const mediaTypePattern = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+$/;

/** The media type of a raw upload: its Content-Type without parameters, `application/octet-stream` without one. */
export function uploadMediaType(context: Context): string {
  const header = context.req.header('content-type');
  const mediaType = header?.split(';')[0]?.trim().toLowerCase();
  if (!mediaType) return 'application/octet-stream';
  if (!mediaTypePattern.test(mediaType) || mediaType.length > 255) {
    throw new ServerError({
      code: 'invalid_request',
      field: 'header.content-type',
      message: 'header.content-type: not a media type (type/subtype, e.g. text/plain or application/pdf).',
    });
  }
  return mediaType;
}

/** The bytes of a raw upload; `invalid_request` naming `body` when there are none. */
export async function uploadBytes(context: Context): Promise<Uint8Array> {
  const bytes = new Uint8Array(await context.req.arrayBuffer());
  if (bytes.byteLength === 0) {
    throw new ServerError({ code: 'invalid_request', field: 'body', message: 'body: the upload is empty.' });
  }
  return bytes;
}
