// The client the MCP conformance suite drives (`conformance client --command "<this>" --scenario <name>`): it gets
// the scenario's server URL as its last argument and the scenario name in MCP_CONFORMANCE_SCENARIO, and does what
// toolbus does with a server: connect (OAuth when the server asks for it), list tools, call them.
import { completeMcpOAuth } from '../complete-mcp-oauth.ts';
import { connectMcpServer, type McpConnection } from '../connect-mcp-server.ts';
import { McpAuthorizationRequiredError } from '../errors/mcp-authorization-required-error.ts';
import type { McpServerConfig } from '../mcp-server-config.ts';
import { createInMemoryMcpTokenStore } from '../mcp-token-store.ts';
import { omitUndefined } from '@toolbus/spec';

const url = process.argv.at(-1) ?? '';
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
// The suite's servers listen on this machine only; a plain fetch is enough here (the application passes its guarded one).
const plainFetch = (input: string | URL | Request, init?: RequestInit) => fetch(input, init);
// Scenarios with pre-registered client credentials pass them here.
// Scenarios that want particular calls (the Mcp-Param-* header ones) name them in `toolCalls`.
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as {
  client_id?: string;
  client_secret?: string;
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
};
const preRegistered =
  context.client_id === undefined
    ? {}
    : { client: { id: context.client_id, ...omitUndefined({ secret: context.client_secret }) } };
const config: McpServerConfig = {
  id: 'conformance',
  name: 'conformance',
  transport: { type: 'streamable-http', url },
  auth: scenario.startsWith('auth/') ? { type: 'oauth', ...preRegistered } : { type: 'none' },
};
const oauth = {
  tokenStore: createInMemoryMcpTokenStore(),
  userId: 'conformance-user',
  redirectUrl: 'http://localhost:3000/callback',
};

/** Plays the user's browser: the suite's authorization server approves at once and redirects back. */
async function authorize(error: McpAuthorizationRequiredError): Promise<void> {
  if (error.authorizationUrl === undefined) throw error;
  const response = await fetch(error.authorizationUrl, { redirect: 'manual' });
  const location = new URL(response.headers.get('location') ?? '', error.authorizationUrl);
  await completeMcpOAuth(config, {
    fetch: plainFetch,
    oauth,
    authorizationCode: location.searchParams.get('code') ?? '',
    state: location.searchParams.get('state') ?? '',
    ...omitUndefined({ issuer: location.searchParams.get('iss') ?? undefined }),
  });
}

/** Runs `work`, authorizing and starting over when the server asks for (more) authorization; at most 3 times. */
async function withAuthorization(work: (connection: McpConnection) => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    let connection: McpConnection | undefined;
    try {
      connection = await connectMcpServer(config, { fetch: plainFetch, oauth });
      await work(connection);
      return;
    } catch (error) {
      if (!McpAuthorizationRequiredError.isInstance(error) || attempt >= 2) throw error;
      await authorize(error);
    } finally {
      await connection?.close();
    }
  }
}

/** A value of the property's type, as a model would fill a required argument. */
function sampleValue(schema: unknown): unknown {
  const type = (schema as { type?: unknown } | undefined)?.type;
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  if (type === 'object') return {};
  if (type === 'array') return [];
  return 'us-west1';
}

type ListedTool = { name: string; inputSchema: Record<string, unknown> };

/** The arguments toolbus's model would send: every required property filled. */
function argumentsFor(tool: ListedTool, tools: readonly ListedTool[]): Record<string, unknown> {
  if (tool.name === 'add_numbers') return { a: 5, b: 3 };
  // The preservation scenario asks the client to echo the focal tool's input schema as it kept it.
  if (tool.name === 'json_schema_echo') {
    const focal = tools.find((other) => other.name === 'json_schema_2020_12_tool');
    return { schema: focal?.inputSchema ?? {} };
  }
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(tool.inputSchema.required) ? (tool.inputSchema.required as string[]) : [];
  return Object.fromEntries(required.map((name) => [name, sampleValue(properties[name])]));
}

await withAuthorization(async (connection) => {
  const tools = await connection.listTools();
  const calls =
    context.toolCalls ?? tools.map((tool) => ({ name: tool.name, arguments: argumentsFor(tool, tools) }));
  for (const call of calls) {
    // A call the server refuses fails alone, as in a turn (the scenario's checks judge what was sent); an
    // authorization demand still goes up to withAuthorization.
    try {
      // The user accepts what the server asks without typing anything: the schema's defaults fill the form
      // (SEP-1034), and on 2026-07-28 the answer goes back in the retried call with the request state (SEP-2322).
      const result = await connection.callTool({
        ...call,
        onElicitation: async () => ({ action: 'accept', content: {} }),
      });
      console.log(`${call.name}: ${JSON.stringify(result.content)}`);
    } catch (error) {
      if (McpAuthorizationRequiredError.isInstance(error)) throw error;
      console.error(`${call.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
});
