import {
  fileListSchema,
  fileParams,
  fileSchema,
  memoryBody,
  memoryListSchema,
  memoryParams,
  memorySchema,
  uploadQuery,
  userSettingsBody,
  userSettingsSchema,
} from '@toolbus/api-schema';
import type { z } from 'zod';
import type { RouteRegistry } from '../http/route-registry.ts';
import { uploadBytes, uploadMediaType } from '../http/upload-input.ts';
import type { UserDataService } from './user-data-service.ts';

const chat = { kind: 'user', scope: 'chat' } as const;

/** The path of the upload route (it has its own, larger, body limit). */
export const FILE_UPLOAD_PATH = '/v1/files';

/** Registers the caller's own files and memories. */
export function registerUserDataRoutes(registry: RouteRegistry, data: UserDataService): void {
  registerFileRoutes(registry, data);
  registerSettingsAndMemoryRoutes(registry, data);
}

/** The caller's files: upload, list, read, download, delete. */
function registerFileRoutes(registry: RouteRegistry, data: UserDataService): void {
  registry.add(
    {
      method: 'post',
      path: FILE_UPLOAD_PATH,
      operationId: 'uploadFile',
      summary: 'Upload a file (the raw bytes as the body; its media type as Content-Type)',
      tag: 'files',
      access: chat,
      query: uploadQuery,
      rawBody: { description: "The file's bytes; its media type as Content-Type" },
      responses: {
        201: { description: 'The file', schema: fileSchema },
        400: {
          description: 'Invalid input (an empty file, a name that is a path); the message names the field',
        },
        413: { description: 'Too large' },
      },
    },
    async ({ principal, query, context }) => {
      const mediaType = uploadMediaType(context);
      const content = await uploadBytes(context);
      return context.json(
        fileView(await data.uploadFile(principal, { name: query.name, mediaType, content })),
        201,
      );
    },
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/files',
      operationId: 'listFiles',
      summary: 'Your files',
      tag: 'files',
      access: chat,
      responses: { 200: { description: 'The files', schema: fileListSchema } },
    },
    async ({ principal, context }) =>
      context.json({ files: (await data.listFiles(principal)).map(fileView) }),
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/files/{fileId}',
      operationId: 'getFile',
      summary: "A file's metadata",
      tag: 'files',
      access: chat,
      params: fileParams,
      responses: { 200: { description: 'The file', schema: fileSchema }, 404: { description: 'Not yours' } },
    },
    async ({ principal, params, context }) =>
      context.json(fileView(await data.getFile(principal, params.fileId))),
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/files/{fileId}/content',
      operationId: 'getFileContent',
      summary: "A file's bytes",
      tag: 'files',
      access: chat,
      params: fileParams,
      responses: { 200: { description: 'The bytes', contentType: 'application/octet-stream' } },
    },
    async ({ principal, params }) => {
      const { file, content } = await data.readFile(principal, params.fileId);
      return new Response(content as Uint8Array<ArrayBuffer>, {
        headers: {
          'content-type': file.mediaType,
          'content-disposition': `attachment; filename="${file.name.replace(/[^\w.-]/g, '_')}"`,
          'x-content-type-options': 'nosniff',
        },
      });
    },
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/files/{fileId}',
      operationId: 'deleteFile',
      summary: 'Delete a file',
      tag: 'files',
      access: chat,
      params: fileParams,
      responses: { 204: { description: 'Deleted' } },
    },
    async ({ principal, params, context }) => {
      await data.deleteFile(principal, params.fileId);
      return context.body(null, 204);
    },
  );
}

/** The caller's own settings and saved memories. */
function registerSettingsAndMemoryRoutes(registry: RouteRegistry, data: UserDataService): void {
  registry.add(
    {
      method: 'patch',
      path: '/v1/me/settings',
      operationId: 'updateMySettings',
      summary: 'Your settings: the memory tool on or off, search forcing',
      tag: 'memories',
      access: chat,
      body: userSettingsBody,
      responses: {
        200: {
          description: 'Your settings',
          schema: userSettingsSchema,
        },
      },
    },
    async ({ principal, body, context }) => {
      const changes = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
      return context.json((await data.updateSettings(principal, changes)).settings);
    },
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/memories',
      operationId: 'listMemories',
      summary: 'Your memories',
      tag: 'memories',
      access: chat,
      responses: {
        200: { description: 'The memories', schema: memoryListSchema },
      },
    },
    async ({ principal, context }) =>
      context.json({ memories: (await data.listMemories(principal)).map(memoryView) }),
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/memories',
      operationId: 'addMemory',
      summary: 'Add a memory',
      tag: 'memories',
      access: chat,
      body: memoryBody,
      responses: { 201: { description: 'The memory', schema: memorySchema } },
    },
    async ({ principal, body, context }) =>
      context.json(memoryView(await data.addMemory(principal, body.text)), 201),
  );
  registry.add(
    {
      method: 'patch',
      path: '/v1/memories/{memoryId}',
      operationId: 'updateMemory',
      summary: 'Change a memory',
      tag: 'memories',
      access: chat,
      params: memoryParams,
      body: memoryBody,
      responses: { 200: { description: 'The memory', schema: memorySchema } },
    },
    async ({ principal, params, body, context }) =>
      context.json(memoryView(await data.updateMemory(principal, params.memoryId, body.text))),
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/memories/{memoryId}',
      operationId: 'deleteMemory',
      summary: 'Delete a memory',
      tag: 'memories',
      access: chat,
      params: memoryParams,
      responses: { 204: { description: 'Deleted' } },
    },
    async ({ principal, params, context }) => {
      await data.deleteMemory(principal, params.memoryId);
      return context.body(null, 204);
    },
  );
}

function fileView(file: z.infer<typeof fileSchema> & { userId?: string }) {
  const { userId: _userId, ...shown } = file;
  return shown;
}

function memoryView(memory: z.infer<typeof memorySchema> & { userId?: string }) {
  const { userId: _userId, ...shown } = memory;
  return shown;
}
