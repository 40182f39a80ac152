import { randomUUID } from 'node:crypto';
import { createStorageMcpTokenStore, toMcpServerConfig } from '@toolbus/assembly';
import { BUILT_IN_TOOLS, BUILT_IN_TOOLS_BY_ID } from '@toolbus/core';
import {
  connectMcpServer,
  McpAuthorizationRequiredError,
  type McpRefreshLock,
  type ProviderInputSchema,
  providerInputSchema,
  toolDefinitionHash,
} from '@toolbus/mcp';
import { parseOpenApiDocument } from '@toolbus/openapi';
import type { SkillBundle, SkillRecord } from '@toolbus/skills';
import type { OpenApiAuth } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import {
  type McpServer,
  type NewMcpServer,
  type NewPersona,
  type Persona,
  type PersonaToolRow,
  type Storage,
  StorageError,
} from '@toolbus/storage';
import type {
  DocumentSearchIndex,
  IndexedDocumentInfo,
  IndexPathsResult,
  IndexProgress,
} from '@toolbus/tools';
import { checkHeaderInput, checkHeaderValue } from '../http/header-input.ts';
import type { Principal } from '../http/principal.ts';
import { ServerError } from '../http/server-error.ts';
import type { AvailableBuiltIns } from './built-in-tool-routes.ts';
import { DocumentAdmin } from './document-admin.ts';
import {
  type LibrarySettings,
  type LibrarySettingsBackend,
  storageSettingsBackend,
} from './library-settings.ts';
import { checkMcpServer, type McpServerCheck, mcpFailureAnswer } from './mcp-server-check.ts';
import { SkillAdmin, type SkillAdminOptions } from './skill-admin.ts';

/** An MCP server as an admin sees it: header names and whether a key is set, never their values. */
export interface McpServerView {
  readonly id: string;
  readonly name: string;
  /** Where it lives; a stdio server's environment (it may hold keys) is left out. */
  readonly endpoint:
    | { readonly transport: 'stdio'; readonly command: string; readonly args: readonly string[] }
    | { readonly transport: 'streamable-http' | 'sse'; readonly url: string };
  readonly authType: McpServer['authType'];
  readonly headerNames: readonly string[];
  readonly hasApiKey: boolean;
  readonly createdAt: string;
}

/** One tool of an MCP server, and whether it may be offered. */
export interface McpToolReview {
  readonly name: string;
  readonly description: string;
  readonly definitionHash: string;
  readonly approvedHash: string | null;
  /** `approved`: offered; `drifted`: its definition changed since approval (withheld); `unapproved`: never approved. */
  readonly status: 'approved' | 'drifted' | 'unapproved';
  /**
   * Why the tool is set aside whatever its approval: its input schema cannot be made into one providers accept
   * (a recursive `$ref`, say). Absent for a tool that can be offered.
   */
  readonly setAside?: string;
}

/** A skill upload waiting for an admin's decision: its validation problems and content-scan findings. */
export interface SkillUploadReview {
  readonly uploadId: string;
  readonly name: string | null;
  readonly problems: readonly { readonly code: string; readonly message: string; readonly entry?: string }[];
  readonly findings: readonly unknown[];
  /** True when it passed validation (it can be accepted; findings need `acceptFindings`). */
  readonly acceptable: boolean;
}

/** What the library admin needs. */
export interface LibraryAdminOptions {
  readonly storage: Storage;
  /** The fetch OpenAPI documents by URL and HTTP MCP servers go through (the guarded one). */
  readonly fetch: typeof fetch;
  /** The skill stores and the deployment's validation rules (reserved names, size limits). */
  readonly skills?: SkillAdminOptions;
  readonly documentIndex?: DocumentSearchIndex;
  /** Folders under which an admin may index server-side paths; none: folder indexing is refused. */
  readonly documentRoots?: readonly string[];
  /** Largest OpenAPI document fetched by URL (default 5 MiB). */
  readonly maxDocumentBytes?: number;
  /** Where settings live (default: in storage). */
  readonly settings?: LibrarySettingsBackend;
  /** The OAuth callback URL: an OAuth MCP server is reviewed with the reviewing admin's own tokens. */
  readonly mcpOAuthRedirectUrl?: string;
  /** Serialises MCP OAuth token refreshes across replicas (default: within this process). */
  readonly mcpOAuthRefreshLock?: McpRefreshLock;
  /** Which built-in tools the deployment can run (the persona editor switches those on for a new persona). */
  readonly availableBuiltIns?: AvailableBuiltIns;
}

const pendingUploadLifetimeMs = 30 * 60 * 1000;
const maxPendingUploads = 20;

/**
 * Everything the library stores, as typed operations with no argv and no HTTP: personas and their tool rows, MCP
 * servers and the approval of their tools, skills (upload → review → explicit accept), documents, settings. The
 * admin routes call these; skills and documents are {@link SkillAdmin} and {@link DocumentAdmin}, which the CLI's
 * `skills` and `index` commands call too (one implementation of each operation).
 */
export class LibraryAdmin {
  readonly #options: LibraryAdminOptions;
  readonly #pendingSkills = new Map<string, { bundle: SkillBundle | undefined; expires: number }>();

  readonly #skills: SkillAdmin | undefined;
  readonly #documents: DocumentAdmin | undefined;
  readonly #settings: LibrarySettingsBackend;

  readonly availableBuiltIns: AvailableBuiltIns | undefined;

  constructor(options: LibraryAdminOptions) {
    this.#options = options;
    this.availableBuiltIns = options.availableBuiltIns;
    this.#settings = options.settings ?? storageSettingsBackend(options.storage);
    this.#skills = options.skills && new SkillAdmin(options.skills);
    this.#documents =
      options.documentIndex &&
      new DocumentAdmin({
        index: options.documentIndex,
        ...(options.documentRoots ? { roots: options.documentRoots } : {}),
      });
  }

  get #storage(): Storage {
    return this.#options.storage;
  }

  // personas and tool rows

  async listPersonas(): Promise<readonly Persona[]> {
    return this.#storage.personas.list();
  }

  async createPersona(persona: NewPersona): Promise<Persona> {
    return this.#storage.personas.create(persona).catch(nameTaken);
  }

  async getPersona(id: string): Promise<{ persona: Persona; tools: readonly PersonaToolRow[] }> {
    const persona = await this.#storage.personas.get(id);
    if (!persona) throw notFound('personaId', 'persona', id);
    const rows = await this.#storage.personas.listToolRows(id);
    return { persona, tools: rows.map(redactRow) };
  }

  async updatePersona(id: string, changes: Partial<NewPersona>): Promise<Persona> {
    await this.getPersona(id);
    return this.#storage.personas.update(id, changes).catch(nameTaken);
  }

  async deletePersona(id: string): Promise<void> {
    if (!(await this.#storage.personas.delete(id))) throw notFound('personaId', 'persona', id);
  }

  /** Adds a built-in tool by id (`SearchTool`) or LLM name (`internal_search`). */
  async addBuiltInTool(personaId: string, builtIn: string): Promise<PersonaToolRow> {
    await this.getPersona(personaId);
    const entry =
      BUILT_IN_TOOLS_BY_ID.get(builtIn) ?? BUILT_IN_TOOLS.find((candidate) => candidate.name === builtIn);
    if (!entry) {
      throw new ServerError({
        code: 'invalid_request',
        field: 'body.builtIn',
        message: `body.builtIn: no built-in tool "${builtIn}" (known: ${BUILT_IN_TOOLS.map((tool) => tool.name).join(', ')}).`,
      });
    }
    return this.#storage.personas.addToolRow(personaId, { kind: 'built-in', builtInId: entry.id });
  }

  /**
   * Adds an OpenAPI document (given, or fetched from `url` through the guarded fetch) after validating it; its
   * operations become tools. Credentials are stored encrypted and never shown again.
   */
  async addOpenApiTools(
    personaId: string,
    input: {
      name?: string | undefined;
      document?: unknown;
      url?: string | undefined;
      auth?: OpenApiAuth | undefined;
    },
  ): Promise<{ row: PersonaToolRow; operations: number }> {
    await this.getPersona(personaId);
    let document = input.document;
    if (document === undefined) {
      if (!input.url) {
        throw new ServerError({
          code: 'invalid_request',
          field: 'body.document',
          message: 'body.document: give a document or a url.',
        });
      }
      document = await this.#fetchDocument(input.url);
    }
    let parsed: Awaited<ReturnType<typeof parseOpenApiDocument>>;
    try {
      parsed = await parseOpenApiDocument(document as Parameters<typeof parseOpenApiDocument>[0]);
    } catch (error) {
      throw new ServerError({
        code: 'invalid_request',
        field: input.url ? 'body.url' : 'body.document',
        message: `${input.url ? 'body.url' : 'body.document'}: not a valid OpenAPI document: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    const title = (parsed as unknown as { document?: { info?: { title?: string } } }).document?.info?.title;
    const row = await this.#storage.personas.addToolRow(personaId, {
      kind: 'openapi',
      name: input.name ?? title ?? 'OpenAPI tools',
      document: typeof document === 'string' ? (JSON.parse(document) as unknown) : document,
      ...omitUndefined({ auth: input.auth }),
    });
    const operations = Object.values(
      ((typeof document === 'string' ? JSON.parse(document) : document) as { paths?: Record<string, object> })
        .paths ?? {},
    ).reduce(
      (count, methods) => count + Object.keys(methods).filter((key) => httpMethods.has(key)).length,
      0,
    );
    return { row: redactRow(row), operations };
  }

  /** Adds one tool of a stored MCP server. */
  async addMcpTool(personaId: string, serverId: string, toolName: string): Promise<PersonaToolRow> {
    await this.getPersona(personaId);
    await this.#server(serverId);
    return this.#storage.personas.addToolRow(personaId, { kind: 'mcp', serverId, toolName });
  }

  async removeToolRow(personaId: string, rowId: string): Promise<void> {
    const rows = await this.#storage.personas.listToolRows(personaId);
    if (!rows.some((row) => row.id === rowId)) throw notFound('rowId', 'tool row of this persona', rowId);
    await this.#storage.personas.removeToolRow(rowId);
  }

  // MCP servers

  async listMcpServers(): Promise<readonly McpServerView[]> {
    return (await this.#storage.mcpServers.list()).map(serverView);
  }

  async createMcpServer(server: NewMcpServer): Promise<McpServerView> {
    checkHeaderInput(server.headers, 'body.headers');
    checkHeaderValue(server.apiKey, 'body.apiKey');
    return serverView(await this.#storage.mcpServers.create(server));
  }

  /** Connects to a server before it is stored and lists its tools; a failure says why, in words. */
  async checkMcpServer(server: NewMcpServer): Promise<McpServerCheck> {
    checkHeaderInput(server.headers, 'body.headers');
    checkHeaderValue(server.apiKey, 'body.apiKey');
    return checkMcpServer(server, { fetch: this.#options.fetch });
  }

  async deleteMcpServer(id: string): Promise<void> {
    if (!(await this.#storage.mcpServers.delete(id))) throw notFound('serverId', 'MCP server', id);
  }

  /**
   * Connects to the server and compares each tool's definition with its approval. An OAuth server is reached with
   * `reviewerId`'s tokens (the admin connects first, like any user).
   */
  async reviewMcpTools(serverId: string, reviewerId?: string): Promise<readonly McpToolReview[]> {
    const server = await this.#server(serverId);
    const approvals = new Map(
      (await this.#storage.mcpServers.listApprovals(serverId)).map((approval) => [
        approval.toolName,
        approval.definitionHash,
      ]),
    );
    const redirectUrl = this.#options.mcpOAuthRedirectUrl;
    let connection: Awaited<ReturnType<typeof connectMcpServer>>;
    try {
      connection = await connectMcpServer(toMcpServerConfig(server), {
        fetch: this.#options.fetch,
        requestTimeoutMs: 30_000,
        ...(server.authType === 'oauth' && reviewerId !== undefined && redirectUrl !== undefined
          ? {
              oauth: {
                tokenStore: createStorageMcpTokenStore(this.#storage),
                userId: reviewerId,
                redirectUrl,
                ...omitUndefined({ refreshLock: this.#options.mcpOAuthRefreshLock }),
              },
            }
          : {}),
      });
    } catch (error) {
      if (!McpAuthorizationRequiredError.isInstance(error))
        throw mcpFailureAnswer(error, { serverName: server.name, field: 'path.serverId' }) ?? error;
      throw new ServerError({
        code: 'conflict',
        field: 'path.serverId',
        message: `path.serverId: "${server.name}" uses OAuth; connect to it yourself first (POST /v1/mcp-servers/${server.id}/connection).`,
      });
    }
    try {
      const reviews: McpToolReview[] = [];
      for (const tool of await connection.listTools()) {
        const definitionHash = await toolDefinitionHash(tool);
        const approvedHash = approvals.get(tool.name) ?? null;
        reviews.push({
          name: tool.name,
          description: tool.description,
          definitionHash,
          approvedHash,
          status:
            approvedHash === null ? 'unapproved' : approvedHash === definitionHash ? 'approved' : 'drifted',
          ...omitUndefined({ setAside: problemOf(providerInputSchema(tool.inputSchema)) }),
        });
      }
      return reviews;
    } finally {
      await connection.close();
    }
  }

  /** Approves a tool's current definition (also re-approves a drifted one). */
  async approveMcpTool(
    serverId: string,
    toolName: string,
    approvedBy: string,
    reviewerId?: string,
  ): Promise<McpToolReview> {
    const review = (await this.reviewMcpTools(serverId, reviewerId)).find((tool) => tool.name === toolName);
    if (!review) throw notFound('toolName', 'tool of this MCP server', toolName);
    await this.#storage.mcpServers.approveTool({
      serverId,
      toolName,
      definitionHash: review.definitionHash,
      approvedBy,
    });
    return { ...review, approvedHash: review.definitionHash, status: 'approved' };
  }

  async revokeMcpTool(serverId: string, toolName: string): Promise<void> {
    if (!(await this.#storage.mcpServers.revokeApproval({ serverId, toolName }))) {
      throw notFound('toolName', 'approved tool', toolName);
    }
  }

  // skills

  /** Validates and scans an uploaded bundle; nothing is stored until {@link LibraryAdmin.acceptSkill}. */
  async reviewSkillUpload(bytes: Uint8Array): Promise<SkillUploadReview> {
    const inspection = await this.#requireSkills().inspect(bytes);
    this.#prunePending();
    // Bytes that cannot be read as a zip archive at all are no skill to review: refused now, and nothing of them is
    // kept (a review entry would otherwise sit in memory until it expired, with nothing anyone could accept).
    const unreadable = inspection.problems.find((problem) => problem.code === 'corrupt_zip');
    if (unreadable !== undefined) {
      throw new ServerError({
        code: 'invalid_request',
        field: 'body',
        message: `body: not a readable zip archive (${unreadable.message}); upload the skill folder as a .zip file.`,
      });
    }
    const uploadId = randomUUID();
    this.#pendingSkills.set(uploadId, {
      bundle: inspection.bundle,
      expires: Date.now() + pendingUploadLifetimeMs,
    });
    return {
      uploadId,
      name: inspection.bundle?.name ?? null,
      problems: inspection.problems.map((problem) => ({
        code: problem.code,
        message: problem.message,
        ...(problem.entry ? { entry: problem.entry } : {}),
      })),
      findings: inspection.findings,
      acceptable: inspection.bundle !== undefined,
    };
  }

  /** How many reviewed skill uploads wait for an accept (expired ones are dropped first). */
  get pendingSkillUploads(): number {
    this.#prunePending();
    return this.#pendingSkills.size;
  }

  /** Stores a reviewed upload; findings refuse it unless `acceptFindings` is true. */
  async acceptSkill(
    uploadId: string,
    options: { acceptFindings?: boolean; replace?: boolean },
  ): Promise<SkillRecord> {
    const skills = this.#requireSkills();
    const pending = this.#pendingSkills.get(uploadId);
    if (!pending || pending.expires < Date.now())
      throw notFound('uploadId', 'pending skill upload', uploadId);
    if (!pending.bundle) {
      throw new ServerError({
        code: 'conflict',
        field: 'path.uploadId',
        message: 'path.uploadId: this upload failed validation; fix the bundle and upload it again.',
      });
    }
    try {
      const record = await skills.add(pending.bundle, options);
      this.#pendingSkills.delete(uploadId);
      return record;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'findings_not_accepted' || code === 'skill_exists') {
        throw new ServerError({
          code: 'conflict',
          field: code === 'findings_not_accepted' ? 'body.acceptFindings' : 'body.replace',
          message: `${code === 'findings_not_accepted' ? 'body.acceptFindings' : 'body.replace'}: ${(error as Error).message}`,
        });
      }
      throw error;
    }
  }

  async listSkills(): Promise<readonly SkillRecord[]> {
    return this.#requireSkills().list();
  }

  async removeSkill(name: string): Promise<void> {
    await this.#requireSkills().remove(name);
  }

  // documents: each call acts on the caller's organisation's documents only

  /** Indexes a server-side folder or file under one of the allowed roots, reporting progress per file. */
  async indexFolder(
    principal: Principal,
    path: string,
    onProgress?: (progress: IndexProgress) => void,
  ): Promise<IndexPathsResult> {
    return this.#documentsOf(principal).indexUnderRoots(path, onProgress);
  }

  /** The absolute path, when it lies under an allowed root; else `forbidden` naming `body.path`. */
  checkIndexPath(path: string): string {
    return this.#requireDocuments().checkPath(path);
  }

  /** Extracts and indexes one uploaded document. */
  async indexUpload(
    principal: Principal,
    input: { name: string; mediaType: string; bytes: Uint8Array },
  ): Promise<{ sourceId: string; outcome: string }> {
    return this.#documentsOf(principal).indexUpload(input);
  }

  async documentCounts(principal: Principal): Promise<{ documents: number; chunks: number }> {
    return this.#documentsOf(principal).counts();
  }

  async listDocuments(
    principal: Principal,
    options: { limit?: number | undefined; after?: string | undefined },
  ): Promise<readonly IndexedDocumentInfo[]> {
    return this.#documentsOf(principal).list(options);
  }

  async removeDocument(principal: Principal, sourceId: string): Promise<void> {
    await this.#documentsOf(principal).remove(sourceId);
  }

  // settings

  async getSettings(): Promise<LibrarySettings> {
    return this.#settings.read();
  }

  /** Sets the given settings; `null` removes one. */
  async updateSettings(changes: LibrarySettings): Promise<LibrarySettings> {
    await this.#settings.write(changes);
    return this.getSettings();
  }

  async #server(id: string): Promise<McpServer> {
    const server = await this.#storage.mcpServers.get(id);
    if (!server) throw notFound('serverId', 'MCP server', id);
    return server;
  }

  async #fetchDocument(url: string): Promise<string> {
    const limit = this.#options.maxDocumentBytes ?? 5 * 1024 * 1024;
    let response: Response;
    try {
      response = await this.#options.fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(30_000) });
    } catch (error) {
      throw new ServerError({
        code: 'invalid_request',
        field: 'body.url',
        message: `body.url: could not fetch the document: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    if (!response.ok) {
      throw new ServerError({
        code: 'invalid_request',
        field: 'body.url',
        message: `body.url: the server answered ${response.status}.`,
      });
    }
    const text = await response.text();
    if (Buffer.byteLength(text) > limit) {
      throw new ServerError({
        code: 'invalid_request',
        field: 'body.url',
        message: `body.url: the document is over ${limit} bytes.`,
      });
    }
    return text;
  }

  #requireSkills(): SkillAdmin {
    if (!this.#skills) {
      throw new ServerError({ code: 'not_available', message: 'This server has no skill store configured.' });
    }
    return this.#skills;
  }

  #documentsOf(principal: Principal): DocumentAdmin {
    return this.#requireDocuments().forOrganization({
      organizationId: principal.organization.id,
      uploadedBy: principal.user.id,
    });
  }

  #requireDocuments(): DocumentAdmin {
    if (!this.#documents) {
      throw new ServerError({
        code: 'not_available',
        message: 'This server has no document index configured.',
      });
    }
    return this.#documents;
  }

  #prunePending(): void {
    const now = Date.now();
    for (const [id, pending] of this.#pendingSkills)
      if (pending.expires < now) this.#pendingSkills.delete(id);
    while (this.#pendingSkills.size >= maxPendingUploads) {
      const oldest = this.#pendingSkills.keys().next().value;
      if (oldest === undefined) break;
      this.#pendingSkills.delete(oldest);
    }
  }
}

const httpMethods = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

function notFound(field: string, what: string, id: string): ServerError {
  return new ServerError({
    code: 'not_found',
    field: `path.${field}`,
    message: `path.${field}: no ${what} ${JSON.stringify(id)}.`,
  });
}

/** A tool row without its stored credentials (OpenAPI auth is shown as its type only). */
/** A persona write's `conflict` is always its name (the only unique column): a 409 naming `body.name`. */
function nameTaken(error: unknown): never {
  if (StorageError.isInstance(error) && error.code === 'conflict') {
    throw new ServerError({
      code: 'conflict',
      field: 'body.name',
      message: `body.name: ${error.message}`,
      cause: error,
    });
  }
  throw error;
}

function redactRow(row: PersonaToolRow): PersonaToolRow {
  if (row.source.kind !== 'openapi' || !row.source.auth) return row;
  const { auth, ...source } = row.source;
  return { ...row, source: { ...source, authType: auth.type } as unknown as PersonaToolRow['source'] };
}

function serverView(server: McpServer): McpServerView {
  const endpoint =
    server.endpoint.transport === 'stdio'
      ? { transport: 'stdio' as const, command: server.endpoint.command, args: server.endpoint.args }
      : server.endpoint;
  return {
    id: server.id,
    name: server.name,
    endpoint,
    authType: server.authType,
    headerNames: Object.keys(server.headers),
    hasApiKey: server.apiKey !== null,
    createdAt: server.createdAt,
  };
}

/** The reason a schema is set aside, or nothing when a provider takes it. */
function problemOf(prepared: ProviderInputSchema): string | undefined {
  return prepared.ok ? undefined : prepared.reason;
}
