import { createGuardedFetch, type GuardedFetch } from '@toolbus/core/node';
import type { CliConfig } from './cli-config.ts';

/**
 * The guarded fetch every CLI command reaches the network with (tools, MCP servers, OpenAPI documents): public
 * addresses only, plus the hosts `allowHosts` names (an on-premise wiki, a local MCP server).
 */
export function createCliFetch(config: CliConfig): GuardedFetch {
  return createGuardedFetch({
    level: 'strict',
    ...(config.file.allowHosts ? { allow: config.file.allowHosts } : {}),
  });
}
