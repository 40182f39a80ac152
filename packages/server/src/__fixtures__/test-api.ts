// The server most HTTP tests start: on a fresh test storage (`openTestStorage`'s), listening on loopback port 0,
// with the deployment admin's key when the test names an admin. One place opens, starts and closes the three.
import type { Storage } from '@toolbus/storage';
import { createServer, type ToolbusServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';
import type { ServerOptions } from '../server-options.ts';
import { openTestStorage } from './test-server.ts';

export interface TestApi {
  readonly storage: Storage;
  readonly server: ToolbusServer;
  readonly http: ListeningServer;
  /** The deployment admin's key: '' when no admin was named (or local auth, which has no keys). */
  readonly adminKey: string;
  /** Stops listening, closes the server, then its storage. */
  close(): Promise<void>;
}

export async function startTestApi(options: {
  /** The server's options, given its storage (which a test may seed first: personas, MCP servers). */
  readonly server: (storage: Storage) => Omit<ServerOptions, 'storage'> | Promise<Omit<ServerOptions, 'storage'>>;
  /** The deployment admin bootstrapped with a key (API-key auth only). */
  readonly adminEmail?: string;
}): Promise<TestApi> {
  const { storage } = await openTestStorage();
  const server = await createServer({ ...(await options.server(storage)), storage });
  const http = await listen(server, { port: 0 });
  const adminKey =
    options.adminEmail === undefined ? '' : ((await server.access.bootstrapAdmin(options.adminEmail))?.key ?? '');
  return {
    storage,
    server,
    http,
    adminKey,
    async close() {
      // Requests stop first, then the server, then the storage it writes to.
      for (const part of [http, server, storage]) await part.close();
    },
  };
}
