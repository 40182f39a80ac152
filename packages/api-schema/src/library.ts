import { z } from 'zod';

// The admin API's library: personas and their tool rows, MCP servers and their tools' approvals, skills, indexed
// documents and the deployment's settings. The answers of rows the stores extend (tool rows, MCP servers,
// skills) are declared by their main fields and open (`z.looseObject`): each may carry more.

const searchUsage = z.enum(['auto', 'enabled', 'disabled']);

/**
 * The `name` of an uploaded file (`?name=`): a bare file name, never a path. Whatever later writes the file
 * somewhere (a sandbox workspace, a download's `Content-Disposition`, an export) gets a name that cannot climb out
 * of the folder it is written to, so `../../etc/passwd`, `a/b`, `C:\x`, `..` and control characters are refused.
 */
export const uploadFileName = z
  .string()
  .min(1)
  .max(255)
  .refine((name) => !/[/\\]/.test(name), 'a file name, not a path (no "/" or "\\")')
  .refine((name) => !/[\x00-\x1f\x7f]/.test(name), 'no control characters')
  .refine((name) => name !== '.' && name !== '..', 'a file name, not "." or ".."')
  .describe('The file name (no path)');

/** The query of an upload route. */
export const uploadQuery = z.object({ name: uploadFileName });

/** A built-in tool a persona can switch on. */
export const builtInToolSchema = z.object({
  id: z.string().describe('The id a persona tool row stores (SearchTool)'),
  name: z.string().describe('The name the model calls it by (internal_search)'),
  displayName: z.string().describe('The name people read (Internal Search), as the chat shows it'),
  available: z.boolean().describe('This deployment can run it (its service is configured)'),
});

/** The built-in tools. */
export const builtInToolListSchema = z.object({ tools: z.array(builtInToolSchema) });

/** Path parameters of the routes of one persona. */
export const personaParams = z.object({ personaId: z.string().min(1).max(100) });

/** Path parameters of the routes of one tool row of a persona. */
export const toolRowParams = personaParams.extend({ rowId: z.string().min(1).max(100) });

/** A persona: a named set of tools with its search behaviour. */
export const personaSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  searchUsage,
  createdAt: z.string(),
});

/** Every persona. */
export const personaListSchema = z.object({ personas: z.array(personaSchema) });

/** Creating a persona (changing one takes any of these fields). */
export const personaBody = z.object({
  name: z.string().min(1).max(100),
  description: z.string().max(2000).optional(),
  searchUsage: searchUsage.optional(),
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

/** Adding a tool row to a persona: a built-in, an OpenAPI document, or one MCP tool. */
export const toolRowBody = z.union([
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

/** A tool row of a persona (credentials left out). */
export const toolRowSchema = z.looseObject({
  id: z.string(),
  personaId: z.string(),
  position: z.number(),
  source: z
    .looseObject({ kind: z.string() })
    .describe('What the row offers: a built-in, OpenAPI or MCP tools'),
  createdAt: z.string(),
  operations: z.number().optional().describe('For an OpenAPI row: the operations it offers'),
});

/** A persona with its tool rows. */
export const personaDetailSchema = z.object({ persona: personaSchema, tools: z.array(toolRowSchema) });

/** Path parameters of the routes of one MCP server. */
export const mcpServerParams = z.object({ serverId: z.string().min(1).max(100) });

/** Who may use one MCP server, and whether sandboxed code may reach it through the egress proxy. */
export const mcpServerAccessSchema = z.strictObject({
  userIds: z
    .array(z.string().min(1).max(100))
    .max(10_000)
    .optional()
    .describe('The users given access; absent: every user of the deployment'),
  availableToSandboxes: z
    .boolean()
    .optional()
    .describe('Offered to code in a sandbox through the egress proxy (off until an admin turns it on)'),
});

/** Path parameters of the routes of one tool of an MCP server. */
export const mcpToolParams = mcpServerParams.extend({ toolName: z.string().min(1).max(200) });

/** Adding an MCP server: how to reach it and how it authenticates (secrets stored encrypted). */
export const mcpServerBody = z.object({
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

/** An MCP server as the admin sees it: header names only, never values. */
export const mcpServerSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  endpoint: z.looseObject({ transport: z.enum(['stdio', 'streamable-http', 'sse']) }),
  authType: z.enum(['none', 'api-key', 'headers', 'oauth']),
  headerNames: z.array(z.string()).describe('Header names only: their values are never shown'),
  hasApiKey: z.boolean(),
  createdAt: z.string(),
});

/** The MCP servers. */
export const mcpServerListSchema = z.object({ servers: z.array(mcpServerSchema) });

/** One tool of an MCP server and whether its current definition is approved. */
export const mcpToolReviewSchema = z.object({
  name: z.string(),
  description: z.string(),
  definitionHash: z.string(),
  approvedHash: z.string().nullable(),
  status: z.enum(['approved', 'drifted', 'unapproved']),
  setAside: z
    .string()
    .optional()
    .describe('Why no provider would accept its input schema, when it is set aside (it is not offered)'),
});

/** An MCP server's tools, each with its approval. */
export const mcpToolReviewListSchema = z.object({ tools: z.array(mcpToolReviewSchema) });

/** A stored skill. */
export const skillSchema = z.looseObject({
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

/** The stored skills. */
export const skillListSchema = z.object({ skills: z.array(skillSchema) });

/** What an uploaded skill zip was found to be, before anything is stored. */
export const skillReviewSchema = z.object({
  uploadId: z.string(),
  name: z.string().nullable(),
  problems: z.array(z.object({ code: z.string(), message: z.string(), entry: z.string().optional() })),
  findings: z.array(z.unknown()),
  acceptable: z.boolean().describe('True when it has no problems (findings need acceptFindings: true)'),
});

/** Path parameters of accepting a reviewed skill upload. */
export const skillUploadParams = z.object({ uploadId: z.string().min(1).max(100) });

/** Accepting a reviewed skill upload. */
export const acceptSkillBody = z.object({
  acceptFindings: z.boolean().optional(),
  replace: z.boolean().optional(),
});

/** Path parameters of the routes of one skill. */
export const skillParams = z.object({ name: z.string().min(1).max(100) });

/** Indexing a server-side folder. */
export const indexFolderBody = z.object({ path: z.string().min(1).max(4096) });

/** One uploaded document, indexed. */
export const indexedUploadSchema = z.object({ sourceId: z.string(), outcome: z.string() });

/** How much an organisation's index holds. */
export const documentCountsSchema = z.object({ documents: z.number(), chunks: z.number() });

/** A page of indexed documents. */
export const documentListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  after: z.string().max(4096).optional().describe('The last source id of the previous page'),
});

/** Indexed documents, by source id. */
export const documentListSchema = z.object({
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
});

/** The document a removal names. */
export const documentSourceQuery = z.object({ sourceId: z.string().min(1).max(4096) });

/** The indexed document a citation links to, by that link (a `file://` URL the browser cannot open itself). */
export const documentTextQuery = z.object({ link: z.string().min(1).max(4096) });

/** The deployment's settings, as read and as changed (null removes one). */
export const settingsSchema = z.object({
  model: z.string().max(300).nullable().optional(),
  webSearchProvider: z.string().max(100).nullable().optional(),
  imageProvider: z.string().max(100).nullable().optional(),
  memoryDefault: z.boolean().nullable().optional(),
});
