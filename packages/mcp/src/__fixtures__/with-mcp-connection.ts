import { connectMcpServer } from '../connect-mcp-server.ts';
import type { ConnectMcpServerOptions, McpConnection } from '../mcp-connection.ts';
import type { McpServerConfig } from '../mcp-server-config.ts';

/**
 * Connects to a test's MCP server, hands the connection to `use`, and closes it whatever `use` did, so a failed
 * assertion never leaves a child process or a session open behind the next test.
 */
export async function withMcpConnection<T>(
  config: McpServerConfig,
  options: ConnectMcpServerOptions,
  use: (connection: McpConnection) => Promise<T>,
): Promise<T> {
  const connection = await connectMcpServer(config, options);
  try {
    return await use(connection);
  } finally {
    await connection.close();
  }
}

/** Where {@link withHttpMcpConnection} connects, and how. */
export interface HttpMcpConnectionOptions extends ConnectMcpServerOptions {
  /** The server's Streamable HTTP endpoint. */
  readonly url: string;
  /** The server's display name (disambiguated tool names are made from it). Default `loopback`. */
  readonly name?: string;
}

/**
 * {@link withMcpConnection} to a test's Streamable HTTP server, the set-up most tests share: no auth, requests
 * through the real fetch unless `fetch` is given.
 */
export function withHttpMcpConnection<T>(
  options: HttpMcpConnectionOptions,
  use: (connection: McpConnection) => Promise<T>,
): Promise<T> {
  const { url, name = 'loopback', ...connectOptions } = options;
  return withMcpConnection(
    { id: 'loopback', name, transport: { type: 'streamable-http', url } },
    { fetch, ...connectOptions },
    use,
  );
}
