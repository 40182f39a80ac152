import { createInterface } from 'node:readline/promises';
import { ToolbusError } from '@toolbus/spec';
import type { McpEndpoint, McpServer, NewMcpServer } from '@toolbus/storage';
import type { CliIo } from '../cli-io.ts';
import { EXIT_CODES } from '../exit-codes.ts';
import { runMcpOAuthLogin } from '../mcp-oauth-login.ts';
import { approveMcpToolSet, syncMcpPersonaRows } from '../mcp-server-status.ts';
import { UsageError } from '../usage-error.ts';
import { actionCommand, defineAction } from './action-command.ts';
import { mcpAccessAction } from './mcp-access.ts';
import {
  cannotStart,
  findServer,
  type McpContext,
  personaFlag,
  serverOperand,
  statusOf,
  usage,
  withMcpContext,
} from './mcp-context.ts';
import { mcpCredentialsAction, mcpTemplateAction } from './mcp-credentials.ts';

const addServer = defineAction({
  name: 'add',
  forms: ['<name> [options] -- <command> [args...]', '<name> <url> [options]'],
  summary:
    'Adds an MCP server: a command started as a child process (stdio), or a URL (Streamable HTTP, or SSE with --sse). Lists its tools and asks to approve them (on a terminal; elsewhere run `toolbus mcp approve` after review).',
  operands: { first: 'a server name', most: 2 },
  passthrough: true,
  flags: [
    {
      name: 'env',
      value: '<NAME>',
      repeatable: true,
      description: 'pass this variable (its current value, stored encrypted) to a stdio server; repeatable',
    },
    {
      name: 'header',
      value: '<H=NAME>',
      repeatable: true,
      description: 'send header H with the value of variable NAME (stored encrypted); repeatable',
    },
    {
      name: 'api-key-env',
      value: '<NAME>',
      description: 'send the value of NAME as "Authorization: Bearer"',
    },
    {
      name: 'oauth',
      description: 'the server signs users in with OAuth: opens the browser (loopback redirect)',
    },
    { name: 'sse', description: 'the URL speaks the older HTTP+SSE transport' },
    { ...personaFlag, description: 'add it to this persona (default: the one in use)' },
    { name: 'yes', description: 'approve the listed tools without asking' },
  ],
  examples: [
    'toolbus mcp add files -- npx -y @modelcontextprotocol/server-filesystem ~/notes',
    'toolbus mcp add tracker https://mcp.example.com/mcp --api-key-env TRACKER_TOKEN',
  ],
  run: ({ operands: [name, url], passthrough, values, io }) => {
    // Checked before anything is opened: a wrong command line changes nothing.
    const wanted = newServer({ name: name as string, url, command: passthrough, values, env: io.env });
    return withMcpContext(io, values.persona, async (context) => {
      const server = await context.workspace.storage.mcpServers.create(wanted);
      try {
        if (server.authType === 'oauth') await login(server, context);
        return await approveFlow(server, { ...context, ask: values.yes !== true });
      } catch (error) {
        // Nothing half-added: a server that cannot be reached is removed again, with the reason.
        await context.workspace.storage.mcpServers.delete(server.id);
        throw error;
      }
    });
  },
});

const listServersAction = defineAction({
  name: 'list',
  forms: [''],
  summary:
    'Lists the MCP servers: whether each starts, how many tools it lists and how many are approved (new, changed and unapproved ones named with the command that approves them). Exits 1 when a server cannot be used.',
  examples: ['toolbus mcp list'],
  run: ({ io }) => withMcpContext(io, undefined, listServers),
});

const listTools = defineAction({
  name: 'tools',
  forms: ['<name>'],
  summary: 'Lists the tools a server lists now, each with its approval state.',
  operands: serverOperand,
  examples: ['toolbus mcp tools files'],
  run: ({ operands: [name], io }) =>
    withMcpContext(io, undefined, async (context) => {
      const { say } = context;
      const server = await findServer(context.workspace.storage, name as string);
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
    }),
});

const approveServer = defineAction({
  name: 'approve',
  forms: ['<name>'],
  summary:
    'Approves the tool set the server lists now for the persona: new and changed tools are offered from the next chat on; tools it no longer lists lose their approval.',
  operands: serverOperand,
  flags: [personaFlag],
  examples: ['toolbus mcp approve files', 'toolbus mcp approve files --persona research'],
  run: ({ operands: [name], values, io }) =>
    withMcpContext(io, values.persona, async (context) =>
      approveFlow(await findServer(context.workspace.storage, name as string), { ...context, ask: false }),
    ),
});

const loginServer = defineAction({
  name: 'login',
  forms: ['<name>'],
  summary: 'Signs in to an OAuth server through the browser (loopback redirect) and stores the tokens.',
  operands: serverOperand,
  examples: ['toolbus mcp login tracker'],
  run: ({ operands: [name], io }) =>
    withMcpContext(io, undefined, async (context) => {
      await login(await findServer(context.workspace.storage, name as string), context);
      return EXIT_CODES.ok;
    }),
});

const removeServer = defineAction({
  name: 'rm',
  forms: ['<name>'],
  summary: 'Removes the server and its tools from every persona.',
  operands: serverOperand,
  examples: ['toolbus mcp rm files'],
  run: ({ operands: [name], io }) =>
    withMcpContext(io, undefined, async ({ workspace: { storage }, say }) => {
      const server = await findServer(storage, name as string);
      await storage.mcpServers.delete(server.id);
      say(`Removed MCP server "${server.name}" and its tools.`);
      return EXIT_CODES.ok;
    }),
});

/** `toolbus mcp`: add, list, inspect, approve, sign in to and remove MCP servers. */
export const mcpCommand = actionCommand({
  name: 'mcp',
  synopsis: 'mcp add|list|tools|approve|login|rm|access|template|credentials   MCP servers as tools',
  usage,
  defaultAction: 'list',
  actions: [
    addServer,
    listServersAction,
    listTools,
    approveServer,
    loginServer,
    removeServer,
    mcpAccessAction,
    mcpTemplateAction,
    mcpCredentialsAction,
  ],
});

/** The server `mcp add` stores, from its command line; a wrong one is a usage error before anything is opened. */
function newServer(input: {
  name: string;
  url: string | undefined;
  command: readonly string[];
  values: {
    readonly env?: readonly string[];
    readonly header?: readonly string[];
    readonly 'api-key-env'?: string;
    readonly oauth?: boolean;
    readonly sse?: boolean;
  };
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

function firstLine(text: string): string {
  const line = text.split('\n')[0]?.trim() ?? '';
  return line.length > 90 ? `${line.slice(0, 87)}...` : line;
}
