import { omitUndefined } from '@toolbus/spec';
import {
  type McpServer,
  type McpServerAccess,
  readMcpServerAccess,
  type Storage,
  setMcpServerAccess,
} from '@toolbus/storage';
import { EXIT_CODES } from '../exit-codes.ts';
import { UsageError } from '../usage-error.ts';
import { defineAction } from './action-command.ts';
import { findServer, serverOperand, usage, withMcpContext } from './mcp-context.ts';

/** `toolbus mcp access <name>`: who may use the server, and whether sandboxes are offered it. */
export const mcpAccessAction = defineAction({
  name: 'access',
  forms: ['<name> [--sandboxes on|off] [--users <emails> | --all-users]'],
  summary:
    'Shows or sets who may use the server and whether code in a sandbox is offered it through the egress proxy (off until turned on). Setting replaces what was set.',
  operands: serverOperand,
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
  run: ({ operands: [name], values, io }) =>
    withMcpContext(io, undefined, async ({ workspace: { storage }, say }) =>
      mcpServerAccessCommand(await findServer(storage, name as string), {
        storage,
        say,
        ...omitUndefined({ sandboxes: values.sandboxes, users: values.users }),
        allUsers: values['all-users'] === true,
      }),
    ),
});

/** What `toolbus mcp access` was asked: nothing (show it) or a new record. */
interface McpAccessOptions {
  readonly storage: Storage;
  readonly say: (line: string) => void;
  readonly sandboxes?: string;
  readonly users?: string;
  readonly allUsers: boolean;
}

/**
 * `toolbus mcp access <name>`: shows or replaces who may use an MCP server and whether sandboxes are offered it.
 * The record and its predicate are `@toolbus/storage`'s (`mcp-server-access.ts`), as the admin API's are.
 */
async function mcpServerAccessCommand(server: McpServer, options: McpAccessOptions): Promise<number> {
  const { storage, say } = options;
  if (options.users !== undefined && options.allUsers) {
    throw new UsageError({ message: '--users and --all-users cannot go together.', usage });
  }
  const setting = options.sandboxes !== undefined || options.users !== undefined || options.allUsers;
  if (setting) {
    const current = await readMcpServerAccess(storage.settings, server.id);
    const access: McpServerAccess = {
      ...(options.users !== undefined
        ? { userIds: await userIdsOf(storage, options.users) }
        : !options.allUsers && current?.userIds !== undefined
          ? { userIds: current.userIds }
          : {}),
      availableToSandboxes: sandboxesSwitch(options.sandboxes) ?? current?.availableToSandboxes ?? false,
    };
    // Emails were resolved to existing users above; the store still owns the check and the dedupe.
    const result = await setMcpServerAccess(storage, server.id, access);
    if (!result.ok) {
      throw new UsageError({
        message: `--users: user ${result.unknownUser.userId} no longer exists.`,
        usage,
      });
    }
  }
  const access = await readMcpServerAccess(storage.settings, server.id);
  const emails: string[] = [];
  for (const id of access?.userIds ?? [])
    emails.push((await storage.users.get(id))?.email ?? `(deleted user ${id})`);
  say(`MCP server "${server.name}":`);
  say(
    `  users: ${access?.userIds === undefined ? 'every user' : emails.length > 0 ? emails.join(', ') : 'nobody'}`,
  );
  say(
    `  sandboxes: ${access?.availableToSandboxes === true ? 'offered (through the egress proxy)' : 'not offered'}`,
  );
  return EXIT_CODES.ok;
}

function sandboxesSwitch(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new UsageError({ message: `--sandboxes takes on or off, not "${value}".`, usage });
}

async function userIdsOf(storage: Storage, list: string): Promise<string[]> {
  const emails = list
    .split(',')
    .map((email) => email.trim())
    .filter((email) => email !== '');
  if (emails.length === 0) throw new UsageError({ message: '--users needs at least one email.', usage });
  const ids: string[] = [];
  for (const email of emails) {
    const user = await storage.users.get({ email });
    if (!user) {
      throw new UsageError({
        message: `--users: no user has the email "${email}" (see the users admin page).`,
        usage,
      });
    }
    ids.push(user.id);
  }
  return ids;
}
