import { createInterface } from 'node:readline/promises';
import { omitUndefined, ToolbusError } from '@toolbus/spec';
import type { McpEndpoint, McpServer, NewMcpServer, Storage } from '@toolbus/storage';
import { loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { createCliFetch } from '../create-cli-fetch.ts';
import { EXIT_CODES } from '../exit-codes.ts';
import { localOAuthOptions, runMcpOAuthLogin } from '../mcp-oauth-login.ts';
import { approveMcpToolSet, mcpServerStatus, syncMcpPersonaRows } from '../mcp-server-status.ts';
import { type CliWorkspace, openWorkspace } from '../open-workspace.ts';
import { parseCommandArgs } from '../parse-command-args.ts';
import { UsageError } from '../usage-error.ts';
import type { CliCommand } from './cli-command.ts';
import { mcpServerAccessCommand } from './mcp-access.ts';
import { mcpCredentialsCommand, mcpHeaderTemplateCommand } from './mcp-credentials.ts';
import { mcpSubcommands, usage } from './mcp-subcommands.ts';

/** `toolbus mcp`: add, list, inspect, approve, sign in to and remove MCP servers. */
export const mcpCommand: CliCommand = {
  name: 'mcp',
  synopsis: 'mcp add|list|tools|approve|login|rm|access|template|credentials   MCP servers as tools',
  usage,
  subcommands: mcpSubcommands,
  async run(argv: readonly string[], io: CliIo): Promise<number> {
    const separator = argv.indexOf('--');
    const own = separator === -1 ? argv : argv.slice(0, separator);
    const command = separator === -1 ? [] : argv.slice(separator + 1);
    const { values, positionals } = parseCommandArgs({
      argv: own,
      usage,
      options: {
        env: { type: 'string', multiple: true },
        header: { type: 'string', multiple: true },
        'api-key-env': { type: 'string' },
        oauth: { type: 'boolean', default: false },
        sse: { type: 'boolean', default: false },
        persona: { type: 'string' },
        yes: { type: 'boolean', default: false },
        sandboxes: { type: 'string' },
        users: { type: 'string' },
        'all-users': { type: 'boolean', default: false },
        set: { type: 'string', multiple: true },
        value: { type: 'string', multiple: true },
        clear: { type: 'boolean', default: false },
      },
    });
    const [action = 'list', name, url, ...extra] = positionals;
    if (extra.length > 0) throw new UsageError({ message: `unexpected "${extra.join(' ')}".`, usage });
    if (action !== 'list' && name === undefined) {
      throw new UsageError({ message: `${action} needs a server name.`, usage });
    }
    const config = loadCliConfig({ env: io.env });
    const workspace = await openWorkspace(config, { persona: values.persona });
    const fetch = createCliFetch(config);
    const say = (line: string) => io.stdout.write(`${line}\n`);
    try {
      const context = { workspace, io, fetch, say };
      switch (action) {
        case 'add': {
          const server = await workspace.storage.mcpServers.create(
            newServer({ name: name as string, url, command, values, env: io.env }),
          );
          try {
            if (server.authType === 'oauth') await login(server, context);
            return await approveFlow(server, { ...context, ask: !values.yes });
          } catch (error) {
            // Nothing half-added: a server that cannot be reached is removed again, with the reason.
            await workspace.storage.mcpServers.delete(server.id);
            throw error;
          }
        }
        case 'list':
          return await listServers(context);
        case 'tools': {
          const server = await findServer(workspace.storage, name as string);
          const status = await statusOf(server, context);
          if (!status.ok) throw cannotStart(server, status.reason);
          for (const { tool, state } of status.tools) {
            say(
              `${state === 'approved' && tool.inputSchemaProblem === undefined ? '✓' : '!'} ${tool.mcpToolName}  [${state}]  ${firstLine(tool.description)}`,
            );
            if (tool.inputSchemaProblem !== undefined) say(`    set aside: ${tool.inputSchemaProblem}`);
          }
          for (const gone of status.gone) say(`- ${gone}  [approved, no longer listed]`);
          return EXIT_CODES.ok;
        }
        case 'approve':
          return await approveFlow(await findServer(workspace.storage, name as string), {
            ...context,
            ask: false,
          });
        case 'login':
          await login(await findServer(workspace.storage, name as string), context);
          return EXIT_CODES.ok;
        case 'rm': {
          const server = await findServer(workspace.storage, name as string);
          await workspace.storage.mcpServers.delete(server.id);
          say(`Removed MCP server "${server.name}" and its tools.`);
          return EXIT_CODES.ok;
        }
        case 'access':
          return await mcpServerAccessCommand(await findServer(workspace.storage, name as string), {
            storage: workspace.storage,
            say,
            ...omitUndefined({ sandboxes: values.sandboxes, users: values.users }),
            allUsers: values['all-users'],
          });
        case 'template':
          return await mcpHeaderTemplateCommand(await findServer(workspace.storage, name as string), {
            storage: workspace.storage,
            say,
            warn: (line) => io.stderr.write(`${line}\n`),
            ...omitUndefined({ set: values.set }),
            clear: values.clear,
          });
        case 'credentials':
          return await mcpCredentialsCommand(await findServer(workspace.storage, name as string), {
            storage: workspace.storage,
            user: workspace.user,
            say,
            ...omitUndefined({ value: values.value }),
            clear: values.clear,
            env: io.env,
          });
        default:
          throw new UsageError({ message: `unknown action "${action}".`, usage });
      }
    } finally {
      await workspace.close();
      await fetch.close();
    }
  },
};

interface McpContext {
  readonly workspace: CliWorkspace;
  readonly io: CliIo;
  readonly fetch: ReturnType<typeof createCliFetch>;
  readonly say: (line: string) => void;
}

function newServer(input: {
  name: string;
  url: string | undefined;
  command: readonly string[];
  values: { env?: string[]; header?: string[]; 'api-key-env'?: string; oauth?: boolean; sse?: boolean };
  env: CliIo['env'];
}): NewMcpServer {
  const { values } = input;
  const read = (variable: string, what: string): string => {
    const value = input.env[variable];
    if (value === undefined || value === '') {
      throw new ToolbusError({
        code: 'mcp_variable_missing',
        message: `${what} names the variable ${variable}, which is not set in this environment.`,
      });
    }
    return value;
  };
  const [program, ...args] = input.command;
  let endpoint: McpEndpoint;
  if (input.url !== undefined) {
    if (program !== undefined) {
      throw new UsageError({ message: 'give a URL or a command after --, not both.', usage });
    }
    endpoint = { transport: values.sse ? 'sse' : 'streamable-http', url: input.url };
  } else if (program !== undefined) {
    const environment = Object.fromEntries(
      (values.env ?? []).map((variable) => [variable, read(variable, '--env')]),
    );
    endpoint = {
      transport: 'stdio',
      command: program,
      args,
      ...(Object.keys(environment).length > 0 ? { environment } : {}),
    };
  } else {
    throw new UsageError({ message: 'add needs a URL, or a command after --.', usage });
  }
  const headers = Object.fromEntries(
    (values.header ?? []).map((pair) => {
      const [header, variable] = pair.split('=');
      if (!header || !variable)
        throw new UsageError({ message: `--header takes H=NAME, not "${pair}".`, usage });
      return [header, read(variable, `--header ${header}`)];
    }),
  );
  const apiKeyEnv = values['api-key-env'];
  return {
    name: input.name,
    endpoint,
    authType: values.oauth
      ? 'oauth'
      : apiKeyEnv
        ? 'api-key'
        : Object.keys(headers).length > 0
          ? 'headers'
          : 'none',
    headers,
    ...(apiKeyEnv ? { apiKey: read(apiKeyEnv, '--api-key-env') } : {}),
  };
}

async function statusOf(server: McpServer, context: McpContext) {
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

async function login(server: McpServer, context: McpContext): Promise<void> {
  await runMcpOAuthLogin({
    server,
    storage: context.workspace.storage,
    userId: context.workspace.user.id,
    fetch: context.fetch,
    env: context.io.env,
    interactive: Boolean(context.io.stdout.isTTY),
    say: context.say,
  });
}

/** Lists the server's tools and approves the set (asking on a terminal unless --yes). */
async function approveFlow(
  server: McpServer,
  context: McpContext & { readonly ask: boolean },
): Promise<number> {
  const status = await statusOf(server, context);
  if (!status.ok) throw cannotStart(server, status.reason);
  const { say, workspace, io } = context;
  say(`MCP server "${server.name}" lists ${status.tools.length} tool(s):`);
  for (const { tool, state } of status.tools) {
    say(`  ${tool.mcpToolName}${state === 'approved' ? '' : `  [${state}]`}  ${firstLine(tool.description)}`);
  }
  const tools = status.tools.map((entry) => entry.tool);
  if (context.ask) {
    // The persona gets the tools now; they are withheld (and chats say so) until the set is approved.
    await syncMcpPersonaRows({ server, tools, personaId: workspace.persona.id, storage: workspace.storage });
    if (!io.stdin?.isTTY) {
      say(`Not approved yet: review the tools, then run \`toolbus mcp approve ${server.name}\`.`);
      return EXIT_CODES.ok;
    }
    const readline = createInterface({ input: io.stdin, output: io.stdout as NodeJS.WritableStream });
    const answer = await readline.question(
      `Approve these tools for the persona "${workspace.persona.name}"? [y/N] `,
    );
    readline.close();
    if (!/^y(es)?$/i.test(answer.trim())) {
      say(`Not approved: run \`toolbus mcp approve ${server.name}\` when you are ready.`);
      return EXIT_CODES.ok;
    }
  }
  await approveMcpToolSet({
    server,
    tools,
    personaId: workspace.persona.id,
    storage: workspace.storage,
    approvedBy: 'local user',
  });
  say(
    `Approved ${status.tools.length} tool(s) of "${server.name}" for the persona "${workspace.persona.name}".`,
  );
  return EXIT_CODES.ok;
}

async function listServers(context: McpContext): Promise<number> {
  const { workspace, say } = context;
  const servers = await workspace.storage.mcpServers.list();
  if (servers.length === 0) say('No MCP servers. Add one: toolbus mcp add <name> -- <command> [args...]');
  let broken = 0;
  for (const server of servers) {
    const where =
      server.endpoint.transport === 'stdio'
        ? `${server.endpoint.command} ${server.endpoint.args.join(' ')}`.trim()
        : server.endpoint.url;
    const status = await statusOf(server, context);
    if (!status.ok) {
      broken += 1;
      say(`✗ ${server.name}  (${server.endpoint.transport}: ${where})  cannot be used: ${status.reason}`);
      continue;
    }
    const approved = status.tools.filter((entry) => entry.state === 'approved').length;
    const waiting = new Map<string, number>();
    for (const { state } of status.tools)
      if (state !== 'approved') waiting.set(state, (waiting.get(state) ?? 0) + 1);
    const pending = [...waiting].map(([state, count]) => `${count} ${state}`).join(', ');
    say(
      `${waiting.size === 0 ? '✓' : '!'} ${server.name}  (${server.endpoint.transport}: ${where})  ${status.tools.length} tool(s), ${approved} approved` +
        (waiting.size === 0 ? '' : `; ${pending}: run toolbus mcp approve ${server.name}`),
    );
    // A tool whose schema no provider accepts is never offered, approved or not: say which one and why.
    for (const { tool } of status.tools) {
      if (tool.inputSchemaProblem !== undefined)
        say(`    ${tool.mcpToolName} set aside: ${tool.inputSchemaProblem}`);
    }
  }
  return broken > 0 ? EXIT_CODES.failure : EXIT_CODES.ok;
}

async function findServer(storage: Storage, name: string): Promise<McpServer> {
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

function cannotStart(server: McpServer, reason: string): ToolbusError {
  return new ToolbusError({
    code: 'mcp_server_unavailable',
    message: `MCP server "${server.name}" cannot be used: ${reason}`,
  });
}

function firstLine(text: string): string {
  const line = text.split('\n')[0]?.trim() ?? '';
  return line.length > 90 ? `${line.slice(0, 87)}...` : line;
}
