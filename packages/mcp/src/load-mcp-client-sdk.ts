/** The MCP SDK's client package: about 28 MB of a process's memory once loaded, with its zod schemas and ajv. */
export type McpClientSdk = typeof import('@modelcontextprotocol/client');

let loading: Promise<McpClientSdk> | undefined;
let loaded: McpClientSdk | undefined;

/**
 * The MCP client SDK, imported on the first connection rather than with the package: a server that never talks
 * to an MCP server (most turns of most personas) never pays for it. The one owner of that import in this package.
 */
export function loadMcpClientSdk(): Promise<McpClientSdk> {
  loading ??= import('@modelcontextprotocol/client').then((sdk) => {
    loaded = sdk;
    return sdk;
  });
  return loading;
}

/** The SDK's error classes, for `instanceof` checks on what a connection threw. */
type SdkErrorName = 'UnauthorizedError' | 'SdkHttpError' | 'SseError';

/**
 * Whether `error` is one of the SDK's errors. Before the SDK was loaded nothing can have thrown one, so the answer
 * is then false without loading it.
 */
export function isMcpSdkError<Name extends SdkErrorName>(
  error: unknown,
  name: Name,
): error is InstanceType<McpClientSdk[Name]> {
  return loaded !== undefined && error instanceof loaded[name];
}
