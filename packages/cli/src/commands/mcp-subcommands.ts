import type { CliSubcommand } from './cli-subcommand.ts';

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

const persona = {
  name: 'persona',
  value: '<name>',
  description: 'for this persona (default: the one in use)',
};

/** The subcommands of `toolbus mcp`, each with its own help and flags. */
export const mcpSubcommands: readonly CliSubcommand[] = [
  {
    name: 'add',
    forms: ['<name> [options] -- <command> [args...]', '<name> <url> [options]'],
    summary:
      'Adds an MCP server: a command started as a child process (stdio), or a URL (Streamable HTTP, or SSE with --sse). Lists its tools and asks to approve them (on a terminal; elsewhere run `toolbus mcp approve` after review).',
    flags: [
      {
        name: 'env',
        value: '<NAME>',
        description: 'pass this variable (its current value, stored encrypted) to a stdio server; repeatable',
      },
      {
        name: 'header',
        value: '<H=NAME>',
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
      { ...persona, description: 'add it to this persona (default: the one in use)' },
      { name: 'yes', description: 'approve the listed tools without asking' },
    ],
    examples: [
      'toolbus mcp add files -- npx -y @modelcontextprotocol/server-filesystem ~/notes',
      'toolbus mcp add tracker https://mcp.example.com/mcp --api-key-env TRACKER_TOKEN',
    ],
  },
  {
    name: 'list',
    forms: [''],
    summary:
      'Lists the MCP servers: whether each starts, how many tools it lists and how many are approved (new, changed and unapproved ones named with the command that approves them). Exits 1 when a server cannot be used.',
    examples: ['toolbus mcp list'],
  },
  {
    name: 'tools',
    forms: ['<name>'],
    summary: 'Lists the tools a server lists now, each with its approval state.',
    examples: ['toolbus mcp tools files'],
  },
  {
    name: 'approve',
    forms: ['<name>'],
    summary:
      'Approves the tool set the server lists now for the persona: new and changed tools are offered from the next chat on; tools it no longer lists lose their approval.',
    flags: [persona],
    examples: ['toolbus mcp approve files', 'toolbus mcp approve files --persona research'],
  },
  {
    name: 'login',
    forms: ['<name>'],
    summary: 'Signs in to an OAuth server through the browser (loopback redirect) and stores the tokens.',
    examples: ['toolbus mcp login tracker'],
  },
  {
    name: 'rm',
    forms: ['<name>'],
    summary: 'Removes the server and its tools from every persona.',
    examples: ['toolbus mcp rm files'],
  },
  {
    name: 'access',
    forms: ['<name> [--sandboxes on|off] [--users <emails> | --all-users]'],
    summary:
      'Shows or sets who may use the server and whether code in a sandbox is offered it through the egress proxy (off until turned on). Setting replaces what was set.',
    flags: [
      {
        name: 'sandboxes',
        value: 'on|off',
        description: 'offer it to sandboxed code of the users who may use it',
      },
      { name: 'users', value: '<emails>', description: 'only these users (comma-separated emails)' },
      { name: 'all-users', description: 'every user may use it (the default)' },
    ],
    examples: ['toolbus mcp access wiki', 'toolbus mcp access wiki --sandboxes on --users ana@example.com'],
  },
  {
    name: 'template',
    forms: ['<name> [--set <H=template>]... [--clear]'],
    summary:
      'Shows or replaces the per-user header template ({placeholder}s each user fills, and {user_email}, {user_id}, {user_name}); deny-listed headers are dropped and named.',
    flags: [
      { name: 'set', value: '<H=template>', description: 'a header and its template; repeatable; replaces' },
      { name: 'clear', description: 'remove the template' },
    ],
    examples: [
      'toolbus mcp template tracker --set "Authorization=Bearer {api_key}" --set "X-User={user_email}"',
    ],
  },
  {
    name: 'credentials',
    forms: ['<name> [--value <placeholder=VARIABLE>]... [--clear]'],
    summary:
      "Shows or stores your own values for the server's header template (stored encrypted, never shown).",
    flags: [
      { name: 'value', value: '<p=VAR>', description: 'fill placeholder p from variable VAR; repeatable' },
      { name: 'clear', description: 'forget your values' },
    ],
    examples: ['toolbus mcp credentials tracker --value api_key=TRACKER_KEY'],
  },
];
