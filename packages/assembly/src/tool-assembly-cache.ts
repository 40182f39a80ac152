import { createHash } from 'node:crypto';
import type { McpConnection } from '@toolbus/mcp';
import { type ParsedOpenApiDocument, parseOpenApiDocument } from '@toolbus/openapi';

/** Options of {@link createToolAssemblyCache}. */
export interface ToolAssemblyCacheOptions {
  /** Parsed OpenAPI documents kept (least recently used dropped first; default 32). */
  readonly maxDocuments?: number;
}

/**
 * What survives between assemblies: parsed, dereferenced OpenAPI documents keyed by a hash of their content
 * (parsing GitHub's API takes seconds; building tools from a parsed document far less), and open MCP connections
 * keyed by server, user and a hash of the configuration (an admin's edit opens a new one), whose tool lists stay
 * cached until the server announces `tools/list_changed`. Without a cache, every assembly parses and connects
 * afresh and its connections close with it.
 */
export interface ToolAssemblyCache {
  /** The parsed document for this content, parsing it once (concurrent callers share the parse). */
  parsedDocument(document: unknown): Promise<ParsedOpenApiDocument>;
  /** The open connection for `key`, opening it with `connect` once; a failed open is not kept. */
  mcpConnection(key: string, connect: () => Promise<McpConnection>): Promise<McpConnection>;
  /** Closes and forgets a connection (after it failed mid-assembly). */
  dropMcpConnection(key: string): Promise<void>;
  readonly size: { readonly documents: number; readonly mcpConnections: number };
  /** Closes every cached MCP connection. */
  close(): Promise<void>;
}

/** Creates a {@link ToolAssemblyCache}: one per application process (it holds live MCP sessions). */
export function createToolAssemblyCache(options: ToolAssemblyCacheOptions = {}): ToolAssemblyCache {
  const maxDocuments = options.maxDocuments ?? 32;
  const documents = new Map<string, Promise<ParsedOpenApiDocument>>();
  const connections = new Map<string, Promise<McpConnection>>();
  return {
    parsedDocument(document) {
      const key = contentHash(document);
      const cached = documents.get(key);
      if (cached !== undefined) {
        // Re-insert: Map order doubles as recency order.
        documents.delete(key);
        documents.set(key, cached);
        return cached;
      }
      const pending = parseOpenApiDocument(document as Record<string, unknown>);
      documents.set(key, pending);
      pending.catch(() => {
        if (documents.get(key) === pending) documents.delete(key);
      });
      while (documents.size > maxDocuments) {
        const oldest = documents.keys().next().value;
        if (oldest === undefined) break;
        documents.delete(oldest);
      }
      return pending;
    },
    mcpConnection(key, connect) {
      const cached = connections.get(key);
      if (cached !== undefined) return cached;
      const pending = connect();
      connections.set(key, pending);
      pending.catch(() => {
        if (connections.get(key) === pending) connections.delete(key);
      });
      return pending;
    },
    async dropMcpConnection(key) {
      const cached = connections.get(key);
      connections.delete(key);
      const connection = await cached?.catch(() => undefined);
      await connection?.close().catch(() => undefined);
    },
    get size() {
      return { documents: documents.size, mcpConnections: connections.size };
    },
    async close() {
      const pending = [...connections.values()];
      connections.clear();
      documents.clear();
      await Promise.all(
        pending.map(async (connection) =>
          (await connection.catch(() => undefined))?.close().catch(() => undefined),
        ),
      );
    },
  };
}

/** SHA-256 of a JSON value (in-memory cache key; secrets never go into it). */
export function contentHash(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(value) ?? 'undefined')
    .digest('hex');
}
