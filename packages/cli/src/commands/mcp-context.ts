import { omitUndefined, ToolbusError } from '@toolbus/spec';
import type { McpServer, Storage } from '@toolbus/storage';
import { loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { createCliFetch } from '../create-cli-fetch.ts';
import { localOAuthOptions } from '../mcp-oauth-login.ts';
import { mcpServerStatus } from '../mcp-server-status.ts';
import { type CliWorkspace, withWorkspace } from '../open-workspace.ts';

/** The help of `toolbus mcp`: its actions and their options. */
export const usage = `Usage: toolbus mcp <action> [options]

MCP servers give a persona tools. A server's tools are offered once you approve its tool set; when the server
changes a tool (or lists a new one) it asks again.

  add <name> [options] -- <command> [args...]   a server started as a child process (stdio)
  add <name> <url> [options]                     a server over HTTP (Streamable HTTP, or SSE with --sse)
  list                                           servers, whether they start, and what is approved
  tools <name>                                   the tools a server lists, with their approval
  approve <name>                                 approve the tool set it lists now (for the persona)
  login <name>                                   sign in through the browser (OAuth servers)
  rm <name>                                      remove the server and its tools from every persona
  access <name> [options]                        who may use it, and whether sandboxes are offered it
  template <name> [--set <H=template>]... [--clear]   the per-user header template (admin)
  credentials <name> [--value <p=VAR>]... [--clear]   your own values for the template (stored encrypted)

Options of add:
  --env <NAME>            pass this variable (its current value, stored encrypted) to a stdio server; repeatable
  --header <H=NAME>       send header H with the value of variable NAME (stored encrypted); repeatable
  --api-key-env <NAME>    send the value of NAME as "Authorization: Bearer"
  --oauth                 the server signs users in with OAuth: opens the browser (loopback redirect)
  --sse                   the URL speaks the older HTTP+SSE transport
  --persona <name>        add it to this persona (default: the one in use)
  --yes                   approve the listed tools without asking

Options of access (without any: show it):
  --sandboxes on|off      offer it to code in a sandbox through the egress proxy (off until turned on)
  --users <emails>        only these users (comma-separated emails) may use it
  --all-users             every user may use it (the default)

Options of template and credentials (without any: show it):
  --set <H=template>      header H with a template, e.g. "Authorization=Bearer {api_key}"; replaces the template
  --value <p=VAR>         fill placeholder p with the value of variable VAR (never on the command line)
  --clear                 remove the template, or your values
`;

/** What every `toolbus mcp` action works with: the workspace, the terminal, the CLI's fetch and a line printer. */
export interface McpContext {
  readonly workspace: CliWorkspace;
  readonly io: CliIo;
  readonly fetch: ReturnType<typeof createCliFetch>;
  readonly say: (line: string) => void;
}

/** `--persona` of the actions that act for one: the same flag (and meaning) for each. */
export const personaFlag = {
  name: 'persona',
  value: '<name>',
  description: 'for this persona (default: the one in use)',
} as const;

/** Runs `use` with the workspace (for `persona`, default the one in use) and the CLI's fetch; closes both after. */
export function withMcpContext<T>(
  io: CliIo,
  persona: string | undefined,
  use: (context: McpContext) => Promise<T>,
): Promise<T> {
  const config = loadCliConfig({ env: io.env });
  return withWorkspace(
    config,
    async (workspace) => {
      const fetch = createCliFetch(config);
      try {
        return await use({ workspace, io, fetch, say: (line) => io.stdout.write(`${line}\n`) });
      } finally {
        await fetch.close();
      }
    },
    { persona },
  );
}

/** The stored server of that name; an unknown name lists the known ones. */
export async function findServer(storage: Storage, name: string): Promise<McpServer> {
  const servers = await storage.mcpServers.list();
  const server = servers.find((candidate) => candidate.name === name);
  if (server === undefined) {
    throw new ToolbusError({
      code: 'mcp_server_not_found',
      message: `No MCP server named "${name}". Known servers: ${servers.map((known) => known.name).join(', ') || 'none'}.`,
    });
  }
  return server;
}

/** Whether the server starts now and the approval state of each tool it lists (signed in, for OAuth servers). */
export async function statusOf(server: McpServer, context: McpContext) {
  const oauth = await localOAuthOptions({
    storage: context.workspace.storage,
    server,
    userId: context.workspace.user.id,
  });
  return mcpServerStatus({
    server,
    storage: context.workspace.storage,
    fetch: context.fetch,
    user: context.workspace.user,
    ...omitUndefined({ oauth }),
  });
}

export function cannotStart(server: McpServer, reason: string): ToolbusError {
  return new ToolbusError({
    code: 'mcp_server_unavailable',
    message: `MCP server "${server.name}" cannot be used: ${reason}`,
  });
}

/** The operand of every action but `list`. */
export const serverOperand = { first: 'a server name' } as const;
