// A server with API keys whose default persona has the lookup tools, for the tests of its MCP endpoint
// (`/v1/mcp/{personaId}`) with clients of either protocol revision.
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
