// What an MCP client is served of a persona offering the lookup test tool (`lookupToolFactories`), checked the
// same way for a client of either protocol revision.
import assert from 'node:assert/strict';

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
