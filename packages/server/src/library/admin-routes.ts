import { omitUndefined } from '@toolbus/spec';
import { z } from 'zod';
import type { RouteRegistry } from '../http/route-registry.ts';
import { uploadBytes, uploadFileName, uploadMediaType } from '../http/upload-input.ts';
import { registerBuiltInToolRoutes } from './built-in-tool-routes.ts';
import type { LibraryAdmin } from './library-admin.ts';

const admin = { kind: 'admin' } as const;
const personaParams = z.object({ personaId: z.string().min(1).max(100) });
const serverParams = z.object({ serverId: z.string().min(1).max(100) });
const personaSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  searchUsage: z.enum(['auto', 'enabled', 'disabled']),
  createdAt: z.string(),
});
const personaBody = z.object({
  name: z.string().min(1).max(100),
  description: z.string().max(2000).optional(),
  searchUsage: z.enum(['auto', 'enabled', 'disabled']).optional(),
});
const openApiAuth = z.union([
  z.object({
    type: z.literal('api-key'),
    value: z.string().min(1),
    name: z.string().optional(),
    in: z.enum(['header', 'query', 'cookie']).optional(),
    scheme: z.string().optional(),
  }),
  z.object({ type: z.literal('bearer'), token: z.string().min(1), scheme: z.string().optional() }),
  z.object({
    type: z.literal('basic'),
    username: z.string(),
    password: z.string(),
    scheme: z.string().optional(),
  }),
]);
const toolRowBody = z.union([
  z.object({
    kind: z.literal('built-in'),
    builtIn: z.string().min(1).max(100).describe('SearchTool or internal_search'),
  }),
  z.object({
    kind: z.literal('openapi'),
    name: z.string().min(1).max(200).optional(),
    document: z.unknown().optional().describe('The OpenAPI document (JSON object)'),
    url: z.url().optional().describe('Where to fetch the document (through the guarded fetch)'),
    auth: openApiAuth.optional(),
  }),
  z.object({
    kind: z.literal('mcp'),
    serverId: z.string().min(1).max(100),
    toolName: z.string().min(1).max(200),
  }),
]);
const mcpServerBody = z.object({
  name: z.string().min(1).max(100),
  endpoint: z.union([
    z.object({
      transport: z.literal('stdio'),
      command: z.string().min(1).max(1000),
      args: z.array(z.string().max(1000)).max(100),
      environment: z.record(z.string(), z.string()).optional(),
    }),
    z.object({ transport: z.enum(['streamable-http', 'sse']), url: z.url() }),
  ]),
  authType: z.enum(['none', 'api-key', 'headers', 'oauth']),
  headers: z.record(z.string(), z.string()).optional(),
  apiKey: z.string().optional(),
});
const reviewSchema = z.object({
  name: z.string(),
  description: z.string(),
  definitionHash: z.string(),
  approvedHash: z.string().nullable(),
  status: z.enum(['approved', 'drifted', 'unapproved']),
});
const settingsSchema = z.object({
  model: z.string().max(300).nullable().optional(),
  webSearchProvider: z.string().max(100).nullable().optional(),
  imageProvider: z.string().max(100).nullable().optional(),
  memoryDefault: z.boolean().nullable().optional(),
});
// The answers below are described by their main fields; each may carry more (loose), as the stores add them.
const toolRowSchema = z.looseObject({
  id: z.string(),
  personaId: z.string(),
  position: z.number(),
  source: z
    .looseObject({ kind: z.string() })
    .describe('What the row offers: a built-in, OpenAPI or MCP tools'),
  createdAt: z.string(),
  operations: z.number().optional().describe('For an OpenAPI row: the operations it offers'),
});
const mcpServerSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  endpoint: z.looseObject({ transport: z.enum(['stdio', 'streamable-http', 'sse']) }),
  authType: z.enum(['none', 'api-key', 'headers', 'oauth']),
  headerNames: z.array(z.string()).describe('Header names only: their values are never shown'),
  hasApiKey: z.boolean(),
  createdAt: z.string(),
});
const skillSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  sha256: z.string(),
  totalBytes: z.number(),
  fileCount: z.number(),
  isBuiltIn: z.boolean(),
  findings: z.array(z.unknown()),
  findingsAccepted: z.boolean(),
});
const skillReviewSchema = z.object({
  uploadId: z.string(),
  name: z.string().nullable(),
  problems: z.array(z.object({ code: z.string(), message: z.string(), entry: z.string().optional() })),
  findings: z.array(z.unknown()),
  acceptable: z.boolean().describe('True when it has no problems (findings need acceptFindings: true)'),
});
const ok = (description: string, schema?: z.ZodType) => ({
  200: { description, ...omitUndefined({ schema }) },
});

/** The paths whose body is raw bytes (an upload), not JSON: they get the upload body limit. */
export const ADMIN_UPLOAD_PATHS = ['/v1/admin/skills/uploads', '/v1/admin/documents/uploads'] as const;

/** Registers the admin API over {@link LibraryAdmin}: every route needs the admin role and the `admin` scope. */
export function registerAdminRoutes(registry: RouteRegistry, library: LibraryAdmin): void {
  registerBuiltInToolRoutes(registry);
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/personas',
      operationId: 'listPersonas',
      summary: 'Every persona',
      tag: 'admin',
      access: admin,
      responses: ok('The personas', z.object({ personas: z.array(personaSchema) })),
    },
    async ({ context }) => context.json({ personas: await library.listPersonas() }),
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/admin/personas',
      operationId: 'createPersona',
      summary: 'Create a persona',
      tag: 'admin',
      access: admin,
      body: personaBody,
      responses: {
        201: { description: 'The persona', schema: personaSchema },
        409: { description: 'A persona of that name exists (names are unique, ignoring case)' },
      },
    },
    async ({ body, context }) => context.json(await library.createPersona(stripUndefined(body)), 201),
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/personas/{personaId}',
      operationId: 'getPersona',
      summary: 'A persona and its tool rows (credentials left out)',
      tag: 'admin',
      access: admin,
      params: personaParams,
      responses: ok('The persona', z.object({ persona: personaSchema, tools: z.array(toolRowSchema) })),
    },
    async ({ params, context }) => context.json(await library.getPersona(params.personaId)),
  );
  registry.add(
    {
      method: 'patch',
      path: '/v1/admin/personas/{personaId}',
      operationId: 'updatePersona',
      summary: 'Change a persona',
      tag: 'admin',
      access: admin,
      params: personaParams,
      body: personaBody.partial(),
      responses: {
        ...ok('The persona', personaSchema),
        409: { description: 'Another persona has that name (names are unique, ignoring case)' },
      },
    },
    async ({ params, body, context }) =>
      context.json(await library.updatePersona(params.personaId, stripUndefined(body))),
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/admin/personas/{personaId}',
      operationId: 'deletePersona',
      summary: 'Delete a persona',
      tag: 'admin',
      access: admin,
      params: personaParams,
      responses: { 204: { description: 'Deleted' } },
    },
    async ({ params, context }) => {
      await library.deletePersona(params.personaId);
      return context.body(null, 204);
    },
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/admin/personas/{personaId}/tools',
      operationId: 'addPersonaTool',
      summary:
        'Add a tool row: a built-in, an OpenAPI document (uploaded, or by URL through the guarded fetch), or an MCP tool',
      tag: 'admin',
      access: admin,
      params: personaParams,
      body: toolRowBody,
      responses: { 201: { description: 'The row', schema: toolRowSchema } },
    },
    async ({ params, body, context }) => {
      if (body.kind === 'built-in')
        return context.json(await library.addBuiltInTool(params.personaId, body.builtIn), 201);
      if (body.kind === 'mcp') {
        return context.json(await library.addMcpTool(params.personaId, body.serverId, body.toolName), 201);
      }
      const { row, operations } = await library.addOpenApiTools(params.personaId, {
        name: body.name,
        document: body.document,
        url: body.url,
        auth: body.auth as Parameters<LibraryAdmin['addOpenApiTools']>[1]['auth'],
      });
      return context.json({ ...row, operations }, 201);
    },
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/admin/personas/{personaId}/tools/{rowId}',
      operationId: 'removePersonaTool',
      summary: 'Remove a tool row',
      tag: 'admin',
      access: admin,
      params: personaParams.extend({ rowId: z.string().min(1).max(100) }),
      responses: { 204: { description: 'Removed' } },
    },
    async ({ params, context }) => {
      await library.removeToolRow(params.personaId, params.rowId);
      return context.body(null, 204);
    },
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/mcp-servers',
      operationId: 'listMcpServers',
      summary: 'MCP servers (header names only, never values)',
      tag: 'admin',
      access: admin,
      responses: ok('The servers', z.object({ servers: z.array(mcpServerSchema) })),
    },
    async ({ context }) => context.json({ servers: await library.listMcpServers() }),
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/admin/mcp-servers',
      operationId: 'createMcpServer',
      summary: 'Add an MCP server (secrets stored encrypted)',
      tag: 'admin',
      access: admin,
      body: mcpServerBody,
      responses: { 201: { description: 'The server', schema: mcpServerSchema } },
    },
    async ({ body, context }) =>
      context.json(
        await library.createMcpServer(stripUndefined(body) as Parameters<LibraryAdmin['createMcpServer']>[0]),
        201,
      ),
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/admin/mcp-servers/{serverId}',
      operationId: 'deleteMcpServer',
      summary: 'Remove an MCP server',
      tag: 'admin',
      access: admin,
      params: serverParams,
      responses: { 204: { description: 'Removed' } },
    },
    async ({ params, context }) => {
      await library.deleteMcpServer(params.serverId);
      return context.body(null, 204);
    },
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/mcp-servers/{serverId}/tools',
      operationId: 'reviewMcpTools',
      summary: "The server's tools: approved, drifted (definition changed since approval) or unapproved",
      tag: 'admin',
      access: admin,
      params: serverParams,
      responses: ok('The tools', z.object({ tools: z.array(reviewSchema) })),
    },
    async ({ params, principal, context }) =>
      context.json({ tools: await library.reviewMcpTools(params.serverId, principal.user.id) }),
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/admin/mcp-servers/{serverId}/tools/{toolName}/approval',
      operationId: 'approveMcpTool',
      summary: "Approve a tool's current definition (also a drifted one)",
      tag: 'admin',
      access: admin,
      params: serverParams.extend({ toolName: z.string().min(1).max(200) }),
      responses: ok('The tool', reviewSchema),
    },
    async ({ params, principal, context }) =>
      context.json(
        await library.approveMcpTool(
          params.serverId,
          params.toolName,
          principal.user.email,
          principal.user.id,
        ),
      ),
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/admin/mcp-servers/{serverId}/tools/{toolName}/approval',
      operationId: 'revokeMcpTool',
      summary: "Withdraw a tool's approval",
      tag: 'admin',
      access: admin,
      params: serverParams.extend({ toolName: z.string().min(1).max(200) }),
      responses: { 204: { description: 'Withdrawn' } },
    },
    async ({ params, context }) => {
      await library.revokeMcpTool(params.serverId, params.toolName);
      return context.body(null, 204);
    },
  );
  registry.add(
    {
      method: 'post',
      path: ADMIN_UPLOAD_PATHS[0],
      operationId: 'uploadSkill',
      summary:
        'Upload a skill zip (the raw bytes): validation problems and content-scan findings come back; nothing is stored yet',
      tag: 'admin',
      access: admin,
      rawBody: { description: 'The skill as a zip archive', contentType: 'application/zip' },
      responses: {
        ...ok('The review', skillReviewSchema),
        400: { description: 'The body is not a readable zip archive (nothing is kept)' },
      },
    },
    async ({ context }) => context.json(await library.reviewSkillUpload(await uploadBytes(context))),
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/admin/skills/uploads/{uploadId}/accept',
      operationId: 'acceptSkill',
      summary: 'Store a reviewed skill; findings need acceptFindings: true',
      tag: 'admin',
      access: admin,
      params: z.object({ uploadId: z.string().min(1).max(100) }),
      body: z.object({ acceptFindings: z.boolean().optional(), replace: z.boolean().optional() }),
      responses: {
        201: { description: 'The skill', schema: skillSchema },
        409: { description: 'Findings not accepted, or the name exists' },
      },
    },
    async ({ params, body, context }) =>
      context.json(await library.acceptSkill(params.uploadId, stripUndefined(body)), 201),
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/skills',
      operationId: 'listSkills',
      summary: 'Stored skills',
      tag: 'admin',
      access: admin,
      responses: ok('The skills', z.object({ skills: z.array(skillSchema) })),
    },
    async ({ context }) => context.json({ skills: await library.listSkills() }),
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/admin/skills/{name}',
      operationId: 'removeSkill',
      summary: 'Remove a skill',
      tag: 'admin',
      access: admin,
      params: z.object({ name: z.string().min(1).max(100) }),
      responses: { 204: { description: 'Removed' } },
    },
    async ({ params, context }) => {
      await library.removeSkill(params.name);
      return context.body(null, 204);
    },
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/admin/documents/index',
      operationId: 'indexDocuments',
      summary: 'Index a server-side folder (under an allowed root): progress events, then the result, as SSE',
      tag: 'admin',
      access: admin,
      body: z.object({ path: z.string().min(1).max(4096) }),
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
      path: ADMIN_UPLOAD_PATHS[1],
      operationId: 'uploadDocument',
      summary: 'Index one uploaded document (the raw bytes; its media type as Content-Type)',
      tag: 'admin',
      access: admin,
      query: z.object({ name: uploadFileName }),
      rawBody: { description: "The document's bytes; its media type as Content-Type" },
      responses: {
        201: { description: 'Indexed', schema: z.object({ sourceId: z.string(), outcome: z.string() }) },
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
      responses: ok('The counts', z.object({ documents: z.number(), chunks: z.number() })),
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
      query: z.object({
        limit: z.coerce.number().int().min(1).max(1000).optional(),
        after: z.string().max(4096).optional().describe('The last source id of the previous page'),
      }),
      responses: ok(
        'The documents',
        z.object({
          documents: z.array(
            z.object({
              sourceId: z.string(),
              title: z.string(),
              link: z.string().optional(),
              uploadedBy: z.string().optional(),
              indexedAt: z.string(),
              chunks: z.number(),
            }),
          ),
        }),
      ),
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
      query: z.object({ sourceId: z.string().min(1).max(4096) }),
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
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/settings',
      operationId: 'getSettings',
      summary: 'Deployment settings',
      tag: 'admin',
      access: admin,
      responses: ok('The settings', settingsSchema),
    },
    async ({ context }) => context.json(await library.getSettings()),
  );
  registry.add(
    {
      method: 'patch',
      path: '/v1/admin/settings',
      operationId: 'updateSettings',
      summary: 'Change settings (null removes one)',
      tag: 'admin',
      access: admin,
      body: settingsSchema,
      responses: ok('The settings', settingsSchema),
    },
    async ({ body, context }) => context.json(await library.updateSettings(body)),
  );
}

function stripUndefined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
