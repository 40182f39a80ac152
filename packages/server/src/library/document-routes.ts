import {
  documentCountsSchema,
  documentListQuery,
  documentListSchema,
  documentSourceQuery,
  indexedUploadSchema,
  indexFolderBody,
  uploadQuery,
} from '@toolbus/api-schema';
import type { RouteRegistry } from '../http/route-registry.ts';
import { uploadBytes, uploadMediaType } from '../http/upload-input.ts';
import type { LibraryAdmin } from './library-admin.ts';

const admin = { kind: 'admin' } as const;

/** The path of a document upload (raw bytes, the upload body limit). */
export const DOCUMENT_UPLOAD_PATH = '/v1/admin/documents/uploads';

/** Registers the admin routes of the organisation's document index: index a folder or an upload, list, remove. */
export function registerDocumentRoutes(registry: RouteRegistry, library: LibraryAdmin): void {
  registry.add(
    {
      method: 'post',
      path: '/v1/admin/documents/index',
      operationId: 'indexDocuments',
      summary: 'Index a server-side folder (under an allowed root): progress events, then the result, as SSE',
      tag: 'admin',
      access: admin,
      body: indexFolderBody,
      responses: {
        200: {
          description: 'event: progress {done,total,path} … then event: result',
          contentType: 'text/event-stream',
        },
      },
    },
    async ({ body, principal }) => {
      library.checkIndexPath(body.path);
      const encoder = new TextEncoder();
      const stream = new ReadableStream<Uint8Array>({
        async start(controller) {
          const send = (event: string, data: unknown) =>
            controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
          try {
            const result = await library.indexFolder(principal, body.path, (progress) =>
              send('progress', progress),
            );
            send('result', result);
          } catch (error) {
            send('error', { message: error instanceof Error ? error.message : String(error) });
          }
          controller.close();
        },
      });
      return new Response(stream, {
        headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
      });
    },
  );
  registry.add(
    {
      method: 'post',
      path: DOCUMENT_UPLOAD_PATH,
      operationId: 'uploadDocument',
      summary: 'Index one uploaded document (the raw bytes; its media type as Content-Type)',
      tag: 'admin',
      access: admin,
      query: uploadQuery,
      rawBody: { description: "The document's bytes; its media type as Content-Type" },
      responses: {
        201: { description: 'Indexed', schema: indexedUploadSchema },
      },
    },
    async ({ query, principal, context }) => {
      const mediaType = uploadMediaType(context);
      const bytes = await uploadBytes(context);
      return context.json(await library.indexUpload(principal, { name: query.name, mediaType, bytes }), 201);
    },
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/documents',
      operationId: 'documentCounts',
      summary: "How many documents and chunks your organisation's index holds",
      tag: 'admin',
      access: admin,
      responses: { 200: { description: 'The counts', schema: documentCountsSchema } },
    },
    async ({ principal, context }) => context.json(await library.documentCounts(principal)),
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/documents/list',
      operationId: 'listDocuments',
      summary: "Your organisation's indexed documents, by source id (page with after)",
      tag: 'admin',
      access: admin,
      query: documentListQuery,
      responses: { 200: { description: 'The documents', schema: documentListSchema } },
    },
    async ({ principal, query, context }) =>
      context.json({ documents: await library.listDocuments(principal, query) }),
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/admin/documents',
      operationId: 'removeDocument',
      summary: "Remove one of your organisation's indexed documents",
      tag: 'admin',
      access: admin,
      query: documentSourceQuery,
      responses: {
        204: { description: 'Removed' },
        404: { description: 'Not indexed in your organisation' },
      },
    },
    async ({ principal, query, context }) => {
      await library.removeDocument(principal, query.sourceId);
      return context.body(null, 204);
    },
  );
}
