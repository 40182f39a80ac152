import { BUILT_IN_TOOLS_BY_NAME } from '@toolbus/core';
import type { McpConnection, McpTool } from '@toolbus/mcp';
import { createOpenApiTools, type OpenApiFileStore } from '@toolbus/openapi';
import type { AvailabilityContext, FetchFunction, Tool } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec/omit-undefined';
import type { Persona, PersonaToolRow, SearchUsage, Storage, User } from '@toolbus/storage';
import { adaptTool, checkAvailability } from './adapt-tool.ts';
import type { AssemblyLogger } from './assembly-logger.ts';
import { type AssemblyMcpOptions, loadMcpServerTools, type McpServerTools } from './load-mcp-server-tools.ts';
import { resolveToolNames } from './resolve-tool-names.ts';
import type { SkippedTool } from './skipped-tool.ts';
import type { ToolAssemblyCache } from './tool-assembly-cache.ts';

/** The built-in id of internal search (forced search injects it), from core's registry. */
export const SEARCH_TOOL_ID: string = BUILT_IN_TOOLS_BY_NAME.get('internal_search')?.id ?? 'SearchTool';
/** The built-in id of the memory tool (injected when the user enabled it), from core's registry. */
export const MEMORY_TOOL_ID: string = BUILT_IN_TOOLS_BY_NAME.get('add_memory')?.id ?? 'MemoryTool';

/** What a built-in tool factory receives. */
export interface BuiltInToolFactoryContext {
  readonly builtInId: string;
  readonly persona: Persona;
  readonly user: User | undefined;
  readonly storage: Storage;
  readonly fetch: FetchFunction;
  readonly availabilityContext: AvailabilityContext;
  /** The persona tool row, or undefined for an injected tool (forced search, memory). */
  readonly row: PersonaToolRow | undefined;
}

/** Builds one built-in tool for one assembly. */
export type BuiltInToolFactory = (context: BuiltInToolFactoryContext) => Tool | Promise<Tool>;

/** Options of {@link constructTools}. */
export interface ConstructToolsOptions {
  readonly persona: Persona;
  /** The signed-in user; undefined for anonymous use (then no memory tool and no OAuth MCP servers). */
  readonly user?: User | undefined;
  readonly storage: Storage;
  /** Built-in id (`SearchTool`, `WebSearchTool`, ...) → factory. Ids without a factory are skipped. */
  readonly builtInFactories: ReadonlyMap<string, BuiltInToolFactory>;
  /** The fetch OpenAPI and MCP tools use: the application passes the guarded one. */
  readonly fetch: FetchFunction;
  /** What built-in `isAvailable` checks see. */
  readonly availabilityContext?: AvailabilityContext;
  /**
   * Only these tools this turn: persona tool row ids, or built-in ids. The injections (forced search, the memory
   * tool) bypass it: they follow the request's search setting and the user's memory setting, not the persona's
   * rows.
   */
  readonly allowedToolIds?: readonly string[];
  /** This request's search forcing; default: the user's setting unless `auto`, else the persona's. */
  readonly searchUsage?: SearchUsage;
  /** Keeps parsed OpenAPI documents and MCP connections between assemblies. */
  readonly cache?: ToolAssemblyCache;
  /**
   * Offer only MCP tools an admin approved (default true). Either way, a tool whose definition hash differs from
   * its approval is withheld until re-approved.
   */
  readonly requireMcpApproval?: boolean;
  readonly mcp?: AssemblyMcpOptions;
  readonly openApi?: {
    readonly fileStore?: OpenApiFileStore;
    readonly maxResponseBytes?: number;
    readonly timeoutMs?: number;
  };
  readonly logger?: AssemblyLogger;
  readonly signal?: AbortSignal;
}

/** The tools of one assembly. */
export interface ToolAssembly {
  /** Tools by persona tool row id (an OpenAPI row gives several); injected tools under `injected:<built-in id>`. */
  readonly toolsByRowId: ReadonlyMap<string, readonly Tool[]>;
  /** Every tool, in row order then injected ones; names unique and provider-valid. */
  readonly tools: readonly Tool[];
  /** What was left out, and why. */
  readonly skipped: readonly SkippedTool[];
  /** Closes the MCP connections opened for this assembly (cached ones stay with the cache). */
  close(): Promise<void>;
}

interface BuiltEntry {
  readonly rowId: string;
  readonly kind: 'built-in' | 'openapi' | 'mcp';
  readonly tool: Tool;
  readonly mcpTool?: McpTool;
}

type RowOutcome = { readonly entries: readonly BuiltEntry[]; readonly skipped: readonly SkippedTool[] };

/**
 * Assembles the tools of one turn for a persona: per persona tool row, a built-in
 * (its availability check wrapped: a throw means unavailable), one tool per OpenAPI operation, or one MCP tool
 * (each server connected and listed once per assembly; a tool whose definition drifted from its approval is
 * withheld; a failing server costs only its own tools). Then the `allowedToolIds` whitelist, forced search, and the
 * memory tool, which bypasses persona and whitelist. Names are made provider-valid and unique. Nothing here throws
 * for one bad row: it lands in `skipped`.
 */
export async function constructTools(options: ConstructToolsOptions): Promise<ToolAssembly> {
  const { persona, user, storage } = options;
  const availabilityContext: AvailabilityContext = options.availabilityContext ?? { userId: user?.id };
  const rows = await storage.personas.listToolRows(persona.id);
  const searchUsage = resolveSearchUsage(options);
  const memoryEnabled = user?.settings.memoryToolEnabled === true;
  const allowed = options.allowedToolIds === undefined ? undefined : new Set(options.allowedToolIds);
  const skipped: SkippedTool[] = [];
  const kept: PersonaToolRow[] = [];
  const seenBuiltIns = new Set<string>();
  for (const row of rows) {
    const source = row.source;
    const builtInId = source.kind === 'built-in' ? source.builtInId : undefined;
    const skip = (reason: SkippedTool['reason'], message: string) =>
      skipped.push(
        omitUndefined({ rowId: row.id, source: source.kind, reason, message, toolName: builtInId }),
      );
    const isMemory = builtInId === MEMORY_TOOL_ID;
    if (isMemory && !memoryEnabled) skip('memory-disabled', 'The user has the memory tool turned off.');
    else if (
      !isMemory &&
      allowed !== undefined &&
      !allowed.has(row.id) &&
      !(builtInId && allowed.has(builtInId))
    )
      skip('not-allowed', 'Not in this request’s allowed tools.');
    else if (builtInId === SEARCH_TOOL_ID && searchUsage === 'disabled')
      skip('search-disabled', 'Search usage is disabled for this request.');
    else if (builtInId !== undefined && seenBuiltIns.has(builtInId))
      skip('duplicate-built-in', `The built-in ${builtInId} appears twice; the first row keeps it.`);
    else {
      if (builtInId !== undefined) seenBuiltIns.add(builtInId);
      kept.push(row);
    }
  }

  const ownConnections: McpConnection[] = [];
  const servers = new Map<string, Promise<McpServerTools>>();
  const serverTools = (serverId: string) => {
    let pending = servers.get(serverId);
    if (pending === undefined) {
      pending = loadMcpServerTools({
        serverId,
        storage,
        user,
        fetch: options.fetch,
        mcp: options.mcp ?? {},
        cache: options.cache,
        ownConnections,
        signal: options.signal,
      });
      servers.set(serverId, pending);
    }
    return pending;
  };
  const buildBuiltIn = async (builtInId: string, rowId: string, row: PersonaToolRow | undefined) => {
    const factory = options.builtInFactories.get(builtInId);
    const skip = (reason: SkippedTool['reason'], message: string): RowOutcome => ({
      entries: [],
      skipped: [{ rowId, source: 'built-in', reason, message, toolName: builtInId }],
    });
    if (factory === undefined) return skip('unknown-built-in', `No factory for the built-in ${builtInId}.`);
    let tool: Tool;
    try {
      tool = await factory({
        builtInId,
        persona,
        user,
        storage,
        fetch: options.fetch,
        availabilityContext,
        row,
      });
    } catch (error) {
      return skip('factory-failed', `The built-in ${builtInId} could not be created: ${messageOf(error)}`);
    }
    const availability = await checkAvailability(tool, availabilityContext);
    if ('error' in availability) {
      return skip(
        'availability-check-failed',
        `The availability check of ${builtInId} failed: ${messageOf(availability.error)}`,
      );
    }
    if (!availability.available) return skip('unavailable', `The built-in ${builtInId} is not available.`);
    return {
      entries: [{ rowId, kind: 'built-in', tool: adaptTool(tool) }],
      skipped: [],
    } satisfies RowOutcome;
  };
  const buildRow = async (row: PersonaToolRow): Promise<RowOutcome> => {
    const source = row.source;
    if (source.kind === 'built-in') return buildBuiltIn(source.builtInId, row.id, row);
    if (source.kind === 'openapi') {
      try {
        const document = options.cache
          ? await options.cache.parsedDocument(source.document)
          : source.document;
        const tools = await createOpenApiTools({
          document: document as Parameters<typeof createOpenApiTools>[0]['document'],
          fetch: options.fetch,
          auth: source.auth,
          fileStore: options.openApi?.fileStore,
          maxResponseBytes: options.openApi?.maxResponseBytes,
          timeoutMs: options.openApi?.timeoutMs,
        });
        return { entries: tools.map((tool) => ({ rowId: row.id, kind: 'openapi', tool })), skipped: [] };
      } catch (error) {
        return {
          entries: [],
          skipped: [
            {
              rowId: row.id,
              source: 'openapi',
              reason: 'openapi-failed',
              message: `The OpenAPI tool "${source.name}" was refused: ${messageOf(error)}`,
            },
          ],
        };
      }
    }
    const skip = (reason: SkippedTool['reason'], message: string): RowOutcome => ({
      entries: [],
      skipped: [
        {
          rowId: row.id,
          source: 'mcp',
          reason,
          message,
          toolName: source.toolName,
          serverId: source.serverId,
        },
      ],
    });
    const server = await serverTools(source.serverId);
    if (!server.ok) return skip(server.reason, server.message);
    const tool = server.tools.find((candidate) => candidate.mcpToolName === source.toolName);
    const label = `MCP tool "${source.toolName}" of server "${server.serverName}"`;
    if (tool === undefined) return skip('mcp-tool-missing', `The server does not list the ${label}.`);
    const approval = server.approvals.get(source.toolName);
    if (approval === undefined && options.requireMcpApproval !== false) {
      return skip('mcp-not-approved', `The ${label} has not been approved by an admin.`);
    }
    if (approval !== undefined && approval.definitionHash !== tool.definitionHash) {
      return skip(
        'mcp-definition-changed',
        `The ${label} changed its description or schema since ${approval.approvedBy} approved it; it needs re-approval.`,
      );
    }
    return { entries: [{ rowId: row.id, kind: 'mcp', tool, mcpTool: tool }], skipped: [] };
  };

  const outcomes = await Promise.all(kept.map(buildRow));
  const injections: Promise<RowOutcome>[] = [];
  const keptBuiltIns = new Set(
    kept.flatMap((row) => (row.source.kind === 'built-in' ? [row.source.builtInId] : [])),
  );
  if (searchUsage === 'enabled' && !keptBuiltIns.has(SEARCH_TOOL_ID)) {
    injections.push(buildBuiltIn(SEARCH_TOOL_ID, `injected:${SEARCH_TOOL_ID}`, undefined));
  }
  if (memoryEnabled && !keptBuiltIns.has(MEMORY_TOOL_ID)) {
    injections.push(buildBuiltIn(MEMORY_TOOL_ID, `injected:${MEMORY_TOOL_ID}`, undefined));
  }
  outcomes.push(...(await Promise.all(injections)));

  const entries = outcomes.flatMap((outcome) => outcome.entries);
  for (const outcome of outcomes) skipped.push(...outcome.skipped);
  const names = resolveToolNames(
    entries.map((entry) => ({
      name: entry.tool.name,
      kind: entry.kind,
      disambiguatedName: entry.mcpTool?.disambiguatedName,
    })),
  );
  const toolsByRowId = new Map<string, Tool[]>();
  const tools = entries.map((entry, index) => {
    const name = names[index] ?? entry.tool.name;
    const tool =
      name === entry.tool.name
        ? entry.tool
        : entry.mcpTool !== undefined
          ? entry.mcpTool.withName(name)
          : adaptTool(entry.tool, { name });
    const list = toolsByRowId.get(entry.rowId) ?? [];
    list.push(tool);
    toolsByRowId.set(entry.rowId, list);
    return tool;
  });
  for (const item of skipped) {
    if (item.reason !== 'not-allowed' && item.reason !== 'memory-disabled') {
      options.logger?.warn(item.message, { rowId: item.rowId, reason: item.reason });
    }
  }
  return {
    toolsByRowId,
    tools,
    skipped,
    async close() {
      await Promise.all(
        ownConnections.splice(0).map((connection) => connection.close().catch(() => undefined)),
      );
    },
  };
}

function resolveSearchUsage(options: ConstructToolsOptions): SearchUsage {
  if (options.searchUsage !== undefined) return options.searchUsage;
  const userSetting = options.user?.settings.searchUsage ?? 'auto';
  return userSetting === 'auto' ? options.persona.searchUsage : userSetting;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
