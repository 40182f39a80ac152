import { checkMcpHeaderTemplate, mcpCredentialValuesProblem } from '@toolbus/mcp';
import { omitUndefined } from '@toolbus/spec';
import {
  type McpServer,
  readMcpHeaderTemplate,
  type Storage,
  type User,
  writeMcpHeaderTemplate,
} from '@toolbus/storage';
import { EXIT_CODES } from '../exit-codes.ts';
import { UsageError } from '../usage-error.ts';
import { defineAction } from './action-command.ts';
import { findServer, serverOperand, usage, withMcpContext } from './mcp-context.ts';

/** `toolbus mcp template <name>`: the server's per-user header template (admin). */
export const mcpTemplateAction = defineAction({
  name: 'template',
  forms: ['<name> [--set <H=template>]... [--clear]'],
  summary:
    'Shows or replaces the per-user header template ({placeholder}s each user fills, and {user_email}, {user_id}, {user_name}); deny-listed headers are dropped and named.',
  operands: serverOperand,
  flags: [
    {
      name: 'set',
      value: '<H=template>',
      repeatable: true,
      description: 'a header and its template; repeatable; replaces',
    },
    { name: 'clear', description: 'remove the template' },
  ],
  examples: [
    'toolbus mcp template tracker --set "Authorization=Bearer {api_key}" --set "X-User={user_email}"',
  ],
  run: ({ operands: [name], values, io }) =>
    withMcpContext(io, undefined, async ({ workspace: { storage }, say }) =>
      mcpHeaderTemplateCommand(await findServer(storage, name as string), {
        storage,
        say,
        warn: (line) => io.stderr.write(`${line}\n`),
        ...omitUndefined({ set: values.set }),
        clear: values.clear === true,
      }),
    ),
});

/** `toolbus mcp credentials <name>`: the local user's own values for the template. */
export const mcpCredentialsAction = defineAction({
  name: 'credentials',
  forms: ['<name> [--value <placeholder=VARIABLE>]... [--clear]'],
  summary:
    "Shows or stores your own values for the server's header template (stored encrypted, never shown).",
  operands: serverOperand,
  flags: [
    {
      name: 'value',
      value: '<p=VAR>',
      repeatable: true,
      description: 'fill placeholder p from variable VAR; repeatable',
    },
    { name: 'clear', description: 'forget your values' },
  ],
  examples: ['toolbus mcp credentials tracker --value api_key=TRACKER_KEY'],
  run: ({ operands: [name], values, io }) =>
    withMcpContext(io, undefined, async ({ workspace: { storage, user }, say }) =>
      mcpCredentialsCommand(await findServer(storage, name as string), {
        storage,
        user,
        say,
        ...omitUndefined({ value: values.value }),
        clear: values.clear === true,
        env: io.env,
      }),
    ),
});

/** What `toolbus mcp template` was asked. */
interface McpTemplateOptions {
  readonly storage: Storage;
  readonly say: (line: string) => void;
  readonly warn: (line: string) => void;
  /** `Header=template` pairs replacing the template; none: show it. */
  readonly set?: readonly string[];
  readonly clear: boolean;
}

/**
 * `toolbus mcp template <name>`: shows or replaces the server's per-user header template, with the same checks as
 * the admin API (`checkMcpHeaderTemplate`): deny-listed headers are dropped and named, fixed values refused.
 */
async function mcpHeaderTemplateCommand(server: McpServer, options: McpTemplateOptions): Promise<number> {
  const { storage, say } = options;
  if (options.clear && options.set !== undefined) {
    throw new UsageError({ message: '--set and --clear cannot go together.', usage });
  }
  if (options.clear) await writeMcpHeaderTemplate(storage.settings, server.id, {});
  if (options.set !== undefined) {
    const template: Record<string, string> = {};
    for (const pair of options.set) {
      const [name, value] = splitPair(pair, '--set', 'Header=template');
      template[name] = value;
    }
    const checked = checkMcpHeaderTemplate(template);
    if (checked.problems.length > 0) throw new UsageError({ message: checked.problems.join(' '), usage });
    for (const { header, reason } of checked.dropped) {
      options.warn(`Dropped header ${header} from the template (${reason}): it is never sent.`);
    }
    await writeMcpHeaderTemplate(storage.settings, server.id, checked.headers);
  }
  const { headers, placeholders } = checkMcpHeaderTemplate(
    (await readMcpHeaderTemplate(storage.settings, server.id)) ?? {},
  );
  say(`MCP server "${server.name}":`);
  if (Object.keys(headers).length === 0) say('  no header template');
  for (const [name, value] of Object.entries(headers)) say(`  ${name}: ${value}`);
  if (placeholders.length > 0)
    say(`  each user fills: ${placeholders.map((name) => `{${name}}`).join(', ')}`);
  return EXIT_CODES.ok;
}

/** What `toolbus mcp credentials` was asked. */
interface McpCredentialsOptions {
  readonly storage: Storage;
  readonly user: User;
  readonly say: (line: string) => void;
  /** `placeholder=VARIABLE` pairs: the value is read from the environment, never from the command line. */
  readonly value?: readonly string[];
  readonly clear: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** `toolbus mcp credentials <name>`: the local user's own values for the server's template (stored encrypted). */
async function mcpCredentialsCommand(server: McpServer, options: McpCredentialsOptions): Promise<number> {
  const { storage, user, say } = options;
  const serverId = server.id;
  const { placeholders } = checkMcpHeaderTemplate(
    (await readMcpHeaderTemplate(storage.settings, serverId)) ?? {},
  );
  if (options.clear)
    await storage.userSecrets.delete({ kind: 'mcpHeaderValues', ownerId: serverId, userId: user.id });
  if (options.value !== undefined) {
    if (placeholders.length === 0) {
      throw new UsageError({ message: `MCP server "${server.name}" has no header template to fill.`, usage });
    }
    const values: Record<string, string> = {};
    for (const pair of options.value) {
      const [name, variable] = splitPair(pair, '--value', 'placeholder=VARIABLE');
      const value = options.env[variable];
      if (value === undefined || value === '') {
        throw new UsageError({ message: `--value ${name}: the variable ${variable} is not set.`, usage });
      }
      if (!placeholders.includes(name)) {
        throw new UsageError({ message: `{${name}} is not a placeholder of the template.`, usage });
      }
      values[name] = value;
    }
    const problem = mcpCredentialValuesProblem(values);
    if (problem !== undefined) throw new UsageError({ message: problem, usage });
    await storage.userSecrets.set({
      kind: 'mcpHeaderValues',
      ownerId: serverId,
      userId: user.id,
      value: values,
    });
  }
  const stored =
    (await storage.userSecrets.get({ kind: 'mcpHeaderValues', ownerId: serverId, userId: user.id })) ?? {};
  say(`MCP server "${server.name}", your values (stored encrypted, never shown):`);
  if (placeholders.length === 0) say('  no header template: nothing to fill');
  for (const name of placeholders) say(`  {${name}}: ${Object.hasOwn(stored, name) ? 'set' : 'not set'}`);
  return EXIT_CODES.ok;
}

function splitPair(pair: string, flag: string, form: string): [string, string] {
  const at = pair.indexOf('=');
  if (at <= 0) throw new UsageError({ message: `${flag} takes ${form}, not "${pair}".`, usage });
  return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
}
