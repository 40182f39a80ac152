import { createReadStream } from 'node:fs';
import type { UploadResponse } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { HttpError } from './http-error.ts';
import { sendJson } from './http-io.ts';
import { requestOwner } from './request-owner.ts';
import type { RouteCall } from './route-table.ts';
import { sanitizeFilename } from './sanitize-filename.ts';

const fileNotFound = (fileId: string): HttpError =>
  new HttpError({ status: 404, code: 'file_not_found', message: `no file ${fileId}` });

/** `POST /v1/files?filename=NAME`: stores the raw body. */
export async function handleUpload({ service, request, response, url }: RouteCall): Promise<void> {
  const owner = requestOwner(request);
  const { maxFileBytes } = service.limits;
  const declared = Number(request.headers['content-length'] ?? '0');
  if (declared > maxFileBytes) {
    throw new HttpError({
      status: 413,
      code: 'file_too_large',
      message: `files are limited to ${maxFileBytes} bytes`,
    });
  }
  // Refused before the body is read when its declared length says so: the client then reads our answer.
  service.files.refuseIfFull(owner, declared);
  const stored = await service.files.putStream({
    filename: sanitizeFilename(url.searchParams.get('filename')),
    body: request,
    ...omitUndefined({ owner }),
  });
  const body: UploadResponse = { file_id: stored.fileId, filename: stored.filename, size: stored.size };
  sendJson(response, 201, body);
}

/** `GET /v1/files/{id}`: the stored bytes, as an attachment. */
export async function handleDownload({ service, response, params }: RouteCall): Promise<void> {
  const fileId = params.fileId ?? '';
  const stored = service.files.get(fileId);
  if (!stored) throw fileNotFound(fileId);
  response.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-length': stored.size,
    'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(stored.filename)}`,
    'x-content-type-options': 'nosniff',
  });
  createReadStream(service.files.pathOf(fileId))
    .on('error', () => response.destroy())
    .pipe(response);
}

/** `DELETE /v1/files/{id}`. */
export async function handleDeleteFile({ service, response, params }: RouteCall): Promise<void> {
  const fileId = params.fileId ?? '';
  if (!(await service.files.delete(fileId))) throw fileNotFound(fileId);
  response.writeHead(204).end();
}
