import { BUILT_IN_TOOLS_BY_NAME } from '@toolbus/core';
import type { McpConnection } from '@toolbus/mcp';
import type { AvailabilityContext, FetchFunction, Tool } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { Persona, PersonaToolRow, SearchUsage, Storage, User } from '@toolbus/storage';
import type { AssemblyLogger } from './assembly-logger.ts';
import { buildBuiltInTool } from './build-built-in-tool.ts';
import { buildMcpTool } from './build-mcp-tool.ts';
import { type AssemblyOpenApiOptions, buildOpenApiTools } from './build-openapi-tools.ts';
import type { BuiltInToolFactory } from './built-in-tool-factory.ts';
import { filterToolRows } from './filter-tool-rows.ts';
import { type AssemblyMcpOptions, loadMcpServerTools, type McpServerTools } from './load-mcp-server-tools.ts';
import { nameAssembledTools } from './name-assembled-tools.ts';
import type { RowOutcome } from './row-outcome.ts';
import { routineSkipReasons, type SkippedTool } from './skipped-tool.ts';
import type { ToolAssemblyCache } from './tool-assembly-cache.ts';

/** The built-in id of internal search (forced search injects it), from core's registry. */
export const SEARCH_TOOL_ID: string = BUILT_IN_TOOLS_BY_NAME.get('internal_search')?.id ?? 'SearchTool';
/** The built-in id of the memory tool (injected when the user enabled it), from core's registry. */
export const MEMORY_TOOL_ID: string = BUILT_IN_TOOLS_BY_NAME.get('add_memory')?.id ?? 'MemoryTool';

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
  /**
   * A persona takes each of its MCP servers' whole tool set, as the CLI does (approving a server gives the persona
   * a row per listed tool): a tool the server lists with no row appeared after the set was approved, and is
   * reported in `skipped` as `mcp-tool-new`. Off (default): personas pick MCP tools one by one, so a tool they did
   * not pick is no news.
   */
  readonly mcpWholeToolSets?: boolean;
  readonly mcp?: AssemblyMcpOptions;
  readonly openApi?: AssemblyOpenApiOptions;
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

/**
 * Assembles the tools of one turn for a persona: per persona tool row, a built-in (its availability check
 * wrapped: a throw means unavailable), one tool per OpenAPI operation, or one MCP tool (each server connected and
 * listed once per assembly; a tool whose definition drifted from its approval is withheld; a failing server costs
 * only its own tools). Then the `allowedToolIds` whitelist, forced search, and the memory tool, which bypasses
 * persona and whitelist. Names are made provider-valid and unique. Nothing here throws for one bad row: it lands
 * in `skipped`.
 */
export async function constructTools(options: ConstructToolsOptions): Promise<ToolAssembly> {
  const { persona, user, storage } = options;
  const availabilityContext: AvailabilityContext = options.availabilityContext ?? {
    ...omitUndefined({ userId: user?.id }),
  };
  const searchUsage = resolveSearchUsage(options);
  const memoryEnabled = user?.settings.memoryToolEnabled === true;
  const rows = await storage.personas.listToolRows(persona.id);
  const { kept, skipped } = filterToolRows(rows, {
    memoryToolId: MEMORY_TOOL_ID,
    searchToolId: SEARCH_TOOL_ID,
    memoryEnabled,
    searchUsage,
    allowed: options.allowedToolIds === undefined ? undefined : new Set(options.allowedToolIds),
  });

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
        ...omitUndefined({ signal: options.signal }),
      });
      servers.set(serverId, pending);
    }
    return pending;
  };
  const builtIn = (builtInId: string, rowId: string, row: PersonaToolRow | undefined) =>
    buildBuiltInTool({
      builtInId,
      rowId,
      row,
      factories: options.builtInFactories,
      context: { persona, user, storage, fetch: options.fetch, availabilityContext },
    });
  const buildRow = async (row: PersonaToolRow): Promise<RowOutcome> => {
    const source = row.source;
    if (source.kind === 'built-in') return builtIn(source.builtInId, row.id, row);
    if (source.kind === 'openapi') {
      return buildOpenApiTools({
        row: row as PersonaToolRow & { source: typeof source },
        fetch: options.fetch,
        cache: options.cache,
        options: options.openApi,
      });
    }
    return buildMcpTool({
      row,
      server: await serverTools(source.serverId),
      requireApproval: options.requireMcpApproval !== false,
    });
  };

  const outcomes = await Promise.all(kept.map(buildRow));
  const keptBuiltIns = new Set(
    kept.flatMap((row) => (row.source.kind === 'built-in' ? [row.source.builtInId] : [])),
  );
  const injections: Promise<RowOutcome>[] = [];
  if (searchUsage === 'enabled' && !keptBuiltIns.has(SEARCH_TOOL_ID)) {
    injections.push(builtIn(SEARCH_TOOL_ID, `injected:${SEARCH_TOOL_ID}`, undefined));
  }
  if (memoryEnabled && !keptBuiltIns.has(MEMORY_TOOL_ID)) {
    injections.push(builtIn(MEMORY_TOOL_ID, `injected:${MEMORY_TOOL_ID}`, undefined));
  }
  outcomes.push(...(await Promise.all(injections)));
  if (options.mcpWholeToolSets === true)
    for (const [serverId, pending] of servers) skipped.push(...newMcpTools(serverId, await pending, rows));

  for (const outcome of outcomes) skipped.push(...outcome.skipped);
  const { tools, toolsByRowId } = nameAssembledTools(outcomes.flatMap((outcome) => outcome.entries));
  for (const item of skipped) {
    if (!routineSkipReasons.has(item.reason)) {
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

/**
 * Tools a server lists that the persona has no row for: they appeared after its tool set was approved (approving
 * gives the persona a row per listed tool), so they are not offered, and the user hears why.
 */
function newMcpTools(
  serverId: string,
  server: McpServerTools,
  rows: readonly PersonaToolRow[],
): SkippedTool[] {
  if (!server.ok) return [];
  const known = new Set(
    rows.flatMap((row) =>
      row.source.kind === 'mcp' && row.source.serverId === serverId ? [row.source.toolName] : [],
    ),
  );
  return server.tools
    .filter((tool) => !known.has(tool.mcpToolName))
    .map((tool) => ({
      rowId: `mcp-new:${serverId}:${tool.mcpToolName}`,
      source: 'mcp' as const,
      reason: 'mcp-tool-new' as const,
      toolName: tool.mcpToolName,
      serverId,
      message: `MCP server "${server.serverName}" lists a new tool "${tool.mcpToolName}" since its tool set was approved; it is not offered until approved.`,
    }));
}
