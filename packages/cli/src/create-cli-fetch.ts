import { createGuardedFetch, type GuardedFetch } from '@toolbus/core/node';
import { omitUndefined } from '@toolbus/spec';
import type { CliConfig } from './cli-config.ts';

/**
 * The guarded fetch every CLI command reaches the network with (tools, MCP servers, OpenAPI documents): public
 * addresses only, plus the hosts `allowHosts` names (an on-premise wiki, a local MCP server).
 */
export function createCliFetch(config: CliConfig): GuardedFetch {
  return createGuardedFetch({
    level: 'strict',
    ...omitUndefined({ allow: config.file.allowHosts }),
  });
}
