import type { Context } from 'hono';
import { ServerError } from './server-error.ts';

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
