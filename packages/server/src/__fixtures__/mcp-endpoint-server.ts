// A server with API keys whose default persona has the lookup tools, for the tests of its MCP endpoint
// (`/v1/mcp/{personaId}`) with clients of either protocol revision.
import assert from 'node:assert/strict';
import type { Storage } from '@toolbus/storage';
import { createServer } from '../create-server.ts';
import { listen } from '../listen.ts';
import { lookupToolFactories, openTestStorage } from './test-server.ts';

export interface McpEndpointServer {
  readonly storage: Storage;
  /** `http://127.0.0.1:port`. */
  readonly url: string;
  /** A key of a new member `email`, holding `scopes` (minted by a principal that holds them plus `keys`). */
  keyFor(email: string, scopes: ('chat' | 'mcp')[]): Promise<string>;
  close(): Promise<void>;
}

export async function startMcpEndpointServer(): Promise<McpEndpointServer> {
  const { storage } = await openTestStorage();
  const server = await createServer({
    storage,
    auth: 'api-keys',
    defaultModel: 'openai:gpt-4.1',
    builtInToolFactories: () => lookupToolFactories(),
  });
  const http = await listen(server, { port: 0 });
  return {
    storage,
    url: http.url,
    async keyFor(email, scopes) {
      const user = await storage.users.create({ email });
      const principal = {
        user,
        role: 'user' as const,
        // Minting needs the keys scope, and the key gets no more than the principal holds.
        scopes: [...scopes, 'keys' as const],
        via: 'local' as const,
        organization: { id: 'default', role: 'member' as const },
      };
      return (await server.access.createApiKey(principal, { name: 'mcp', scopes })).key;
    },
    async close() {
      await http.close();
      await storage.close();
    },
  };
}

/** What {@link assertServesLookup} uses of an MCP client: either SDK revision's `Client` has it. */
export interface ToolCallingClient {
  listTools(): Promise<{ tools: { name: string; inputSchema?: unknown }[] }>;
  callTool(call: { name: string; arguments: Record<string, unknown> }): Promise<Record<string, unknown>>;
}

/**
 * Asserts what a connected client is served of the default persona: the `lookup` tool alone, whose call answers
 * the refunds fact. Returns the tools listed, for a test's own further checks.
 */
export async function assertServesLookup(client: ToolCallingClient) {
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((tool) => tool.name),
    ['lookup'],
  );
  const result = await client.callTool({ name: 'lookup', arguments: { query: 'refunds' } });
  assert.equal(result.isError, false);
  assert.match(
    (result.content as { text: string }[])[0]?.text ?? '',
    /Fact about refunds: refunds take 14 days/,
  );
  return tools;
}
