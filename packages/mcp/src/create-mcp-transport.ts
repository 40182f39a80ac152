import type { OAuthClientProvider, Transport } from '@modelcontextprotocol/client';
import type { FetchFunction, McpTransport } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { createInPlaceStdioTransport } from './in-place-stdio-transport.ts';
import { loadMcpClientSdk } from './load-mcp-client-sdk.ts';
import type { McpTransportConfig } from './mcp-server-config.ts';

/** Options for {@link createMcpTransport}. */
export interface CreateMcpTransportOptions {
  /** The transport to open (a config's `auto` is resolved to one of the HTTP two first). */
  readonly kind: McpTransport;
  readonly config: McpTransportConfig;
  /** Required for HTTP kinds: the (guarded, header-adding) fetch every request goes through. */
  readonly fetch?: FetchFunction | undefined;
  readonly authProvider?: OAuthClientProvider | undefined;
  /** Receives the child's stderr (stdio only); it is never inherited into the host's stderr. */
  readonly onStderr?: (chunk: string) => void;
}

/**
 * Opens an SDK transport. The stdio transport is imported lazily so that the package root stays free of
 * `child_process` for HTTP-only (and browser) users; it probes the protocol revision on its own process
 * (`in-place-stdio-transport.ts`).
 */
export async function createMcpTransport(options: CreateMcpTransportOptions): Promise<Transport> {
  const { config } = options;
  if (options.kind === 'stdio') {
    if (config.type !== 'stdio') throw new Error('stdio transport needs a stdio config');
    const transport = await createInPlaceStdioTransport(
      omitUndefined({
        command: config.command,
        args: [...(config.args ?? [])],
        env: config.env === undefined ? undefined : { ...config.env },
        cwd: config.cwd,
        stderr: 'pipe' as const,
      }),
    );
    transport.stderr?.on('data', (chunk: Buffer | string) => options.onStderr?.(String(chunk)));
    return transport;
  }
  if (config.type === 'stdio') throw new Error('HTTP transport needs a URL config');
  const url = new URL(config.url);
  const httpOptions = omitUndefined({
    // Unset fetch is impossible here (checked by the caller), but never fall back to the global fetch.
    fetch: options.fetch as FetchFunction,
    authProvider: options.authProvider,
    // The guarded fetch follows redirects itself and checks every hop (SSRF); the SDK's own same-origin policy
    // would refuse hops toolbus allows and add nothing the guard does not already check.
    redirectPolicy: 'follow' as const,
  });
  const { SSEClientTransport, StreamableHTTPClientTransport } = await loadMcpClientSdk();
  return options.kind === 'sse'
    ? new SSEClientTransport(url, httpOptions)
    : new StreamableHTTPClientTransport(url, httpOptions);
}
