import { BUILT_IN_TOOLS, BUILT_IN_TOOLS_BY_ID } from '@toolbus/core';
import type { McpRefreshLock } from '@toolbus/mcp';
import type { SkillRecord } from '@toolbus/skills';
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
import { notFoundError, ServerError } from '../http/server-error.ts';
import type { AvailableBuiltIns } from './built-in-tool-routes.ts';
import { DocumentAdmin } from './document-admin.ts';
import {
  type LibrarySettings,
  type LibrarySettingsBackend,
  storageSettingsBackend,
} from './library-settings.ts';
import { checkMcpServer, type McpServerCheck } from './mcp-server-check.ts';
import {
  type McpServerView,
  type McpToolReview,
  mcpServerView,
  reviewMcpServerTools,
} from './mcp-tool-review.ts';
import { loadOpenApiToolDocument } from './openapi-tool-document.ts';
import { PendingSkillUploads, type SkillUploadReview } from './pending-skill-uploads.ts';
import { SkillAdmin, type SkillAdminOptions } from './skill-admin.ts';

export type { McpServerView, McpToolReview } from './mcp-tool-review.ts';
export type { SkillUploadReview } from './pending-skill-uploads.ts';

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
  /** toolbus's Client ID Metadata Document URL (`mcpClientMetadataUrl`). */
  readonly mcpOAuthClientMetadataUrl?: string;
  /** Which built-in tools the deployment can run (the persona editor switches those on for a new persona). */
  readonly availableBuiltIns?: AvailableBuiltIns;
}

/**
 * Everything the library stores, as typed operations with no argv and no HTTP: personas and their tool rows, MCP
 * servers and the approval of their tools, skills (upload → review → explicit accept), documents, settings. The
 * admin routes call these; skills and documents are {@link SkillAdmin} and {@link DocumentAdmin}, which the CLI's
 * `skills` and `index` commands call too (one implementation of each operation).
 */
export class LibraryAdmin {
  readonly #options: LibraryAdminOptions;
  readonly #pendingSkills = new PendingSkillUploads();

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
        ...omitUndefined({ roots: options.documentRoots }),
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
    const { document, title, operations } = await loadOpenApiToolDocument({
      document: input.document,
      url: input.url,
      fetch: this.#options.fetch,
      maxDocumentBytes: this.#options.maxDocumentBytes,
    });
    const row = await this.#storage.personas.addToolRow(personaId, {
      kind: 'openapi',
      name: input.name ?? title ?? 'OpenAPI tools',
      document,
      ...omitUndefined({ auth: input.auth }),
    });
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
    return (await this.#storage.mcpServers.list()).map(mcpServerView);
  }

  async createMcpServer(server: NewMcpServer): Promise<McpServerView> {
    checkHeaderInput(server.headers, 'body.headers');
    checkHeaderValue(server.apiKey, 'body.apiKey');
    return mcpServerView(await this.#storage.mcpServers.create(server));
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
    return reviewMcpServerTools({
      storage: this.#storage,
      fetch: this.#options.fetch,
      server: await this.#server(serverId),
      reviewerId,
      oauthRedirectUrl: this.#options.mcpOAuthRedirectUrl,
      oauthRefreshLock: this.#options.mcpOAuthRefreshLock,
      oauthClientMetadataUrl: this.#options.mcpOAuthClientMetadataUrl,
    });
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
    return this.#pendingSkills.review(this.#requireSkills(), bytes);
  }

  /** How many reviewed skill uploads wait for an accept (expired ones are dropped first). */
  get pendingSkillUploads(): number {
    return this.#pendingSkills.size;
  }

  /** Stores a reviewed upload; findings refuse it unless `acceptFindings` is true. */
  async acceptSkill(
    uploadId: string,
    options: { acceptFindings?: boolean; replace?: boolean },
  ): Promise<SkillRecord> {
    return this.#pendingSkills.accept(this.#requireSkills(), { uploadId, ...options });
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
}

function notFound(field: string, what: string, id: string): ServerError {
  return notFoundError(`path.${field}`, `no ${what} ${JSON.stringify(id)}.`);
}

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

/** A tool row without its stored credentials (OpenAPI auth is shown as its type only). */
function redactRow(row: PersonaToolRow): PersonaToolRow {
  if (row.source.kind !== 'openapi' || !row.source.auth) return row;
  const { auth, ...source } = row.source;
  return { ...row, source: { ...source, authType: auth.type } as unknown as PersonaToolRow['source'] };
}
