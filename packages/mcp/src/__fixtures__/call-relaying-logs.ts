import assert from 'node:assert/strict';
import type { McpLogMessage } from '@toolbus/spec';
import type { McpConnection } from '../mcp-connection.ts';

/**
 * Calls the server's tool `name` without arguments, relaying its logs from `info` up as a `/v1/mcp` caller
 * would receive them; asserts the call succeeded and returns what was relayed.
 */
export async function callRelayingLogs(connection: McpConnection, name: string): Promise<McpLogMessage[]> {
  const relayed: McpLogMessage[] = [];
  const result = await connection.callTool({
    name,
    arguments: {},
    logs: { level: 'info', onLog: (message) => relayed.push(message) },
  });
  assert.equal(result.isError ?? false, false);
  return relayed;
}
