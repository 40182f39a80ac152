import { type ConnectedAppActor, ConnectedAppAdmin, ServerError } from '@toolbus/server';
import { ACTION_POLICIES, type ActionPolicy } from '@toolbus/spec';
import { type ConnectedAppActionRecord, DEFAULT_ORGANIZATION_ID } from '@toolbus/storage';
import { loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { EXIT_CODES } from '../exit-codes.ts';
import { withWorkspace } from '../open-workspace.ts';
import { UsageError } from '../usage-error.ts';
import { actionCommand, defineAction } from './action-command.ts';

const appsUsage = `Usage: toolbus apps [list | add <name> ... | remove <name>]

Connected apps are APIs that code in run_python may call: the sandbox has no network except through the egress
proxy, which adds the app's credential on the way out, so the sandbox never sees it. Stored encrypted.

  toolbus apps add <name> --url <regex> [--url <regex>] --header "Name: template" [options]
      --url REGEX          a regular expression the whole request URL must match (repeatable)
      --header "N: T"      a header to add; T may use {{org.KEY}} and {{user.KEY}} placeholders (repeatable)
      --value KEY=VALUE    an organisation value for {{org.KEY}} (repeatable)
      --value-env KEY=VAR  the same, read from the environment variable VAR (keeps it out of shell history)
      --user-value KEY=VALUE / --user-value-env KEY=VAR   your own value for {{user.KEY}}
      --action NAME:METHOD:PATH_REGEX:POLICY   a recognised action (METHOD may be *; POLICY ALWAYS, ASK or DENY)
      --policy POLICY      the policy for every other request to the app (default ASK: you are asked each time)
      --shared             the app is the organisation's (every user), not only yours
  toolbus apps list        names, patterns, header and value names (never values)
  toolbus apps remove <name>
`;

function parsePolicy(text: string): ActionPolicy {
  const upper = text.toUpperCase();
  const policy = ACTION_POLICIES.find((candidate) => candidate === upper);
  if (policy === undefined)
    throw new Error(`Unknown policy "${text}" (use one of ${ACTION_POLICIES.join(', ')}).`);
  return policy;
}

function parsePairs(
  pairs: readonly string[],
  fromEnvironment: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`Expected KEY=VALUE, got "${pair.split('=')[0]}=…".`);
    values[pair.slice(0, at)] = pair.slice(at + 1);
  }
  for (const pair of fromEnvironment) {
    const [key, variable] = pair.split('=');
    if (!key || !variable) throw new Error(`Expected KEY=VARIABLE, got "${pair}".`);
    const value = env[variable];
    if (value === undefined || value === '')
      throw new Error(`The environment variable ${variable} is not set.`);
    values[key] = value;
  }
  return values;
}

function parseAction(text: string): ConnectedAppActionRecord {
  const parts = text.split(':');
  const [name, method, ...rest] = parts;
  const policy = rest.pop();
  const pathPattern = rest.join(':');
  if (!name || !method || !pathPattern || !policy)
    throw new Error(`Expected NAME:METHOD:PATH_REGEX:POLICY, got "${text}".`);
  return {
    name,
    ...(method === '*' ? {} : { method: method.toUpperCase() }),
    pathPattern,
    policy: parsePolicy(policy),
  };
}

/** Runs `use` with the shared app operations and the CLI user as an admin of the default organisation. */
function withApps(
  io: CliIo,
  use: (apps: ConnectedAppAdmin, actor: ConnectedAppActor) => Promise<number>,
): Promise<number> {
  return withWorkspace(loadCliConfig({ env: io.env }), (workspace) =>
    // The same operations as the server's /v1/apps routes; the CLI's user manages the organisation's apps too.
    use(new ConnectedAppAdmin(workspace.storage), {
      userId: workspace.user.id,
      organizationId: DEFAULT_ORGANIZATION_ID,
      isAdmin: true,
    }),
  );
}

const listApps = defineAction({
  name: 'list',
  forms: [''],
  summary: 'Lists the connected apps: names, URL patterns, header and value names (never values).',
  examples: ['toolbus apps list'],
  run: ({ io }) =>
    withApps(io, async (apps, actor) => {
      const listed = await apps.list(actor);
      if (listed.length === 0) {
        io.stdout.write(
          'No connected apps. Add one with: toolbus apps add <name> --url <regex> --header "Name: value"\n',
        );
        return EXIT_CODES.ok;
      }
      for (const app of listed) {
        io.stdout.write(
          [
            `${app.name} (#${app.id}, ${app.shared ? 'organisation' : 'yours'}${app.enabled ? '' : ', disabled'})`,
            `  urls:    ${app.urlPatterns.join('  ')}`,
            `  headers: ${app.headerNames.join(', ') || '-'}`,
            `  values:  ${[...app.organizationValueNames.map((key) => `org.${key}`), ...app.userValueNames.map((key) => `user.${key}`)].join(', ') || '-'}`,
            `  actions: ${app.actions.map((entry) => `${entry.name}=${entry.policy}`).join(', ') || '-'}`,
          ].join('\n') + '\n',
        );
      }
      return EXIT_CODES.ok;
    }),
});

const addApp = defineAction({
  name: 'add',
  forms: ['<name> --url <regex> [--url <regex>] --header "Name: template" [options]'],
  summary:
    'Connects an API that code in run_python may call: the egress proxy adds its credential on the way out, so the sandbox never sees it. Stored encrypted.',
  operands: { first: 'an app name' },
  flags: [
    {
      name: 'url',
      value: '<regex>',
      repeatable: true,
      description: 'a regular expression the whole request URL must match (repeatable)',
    },
    {
      name: 'header',
      value: '"N: T"',
      repeatable: true,
      description: 'a header to add; T may use {{org.KEY}} and {{user.KEY}} (repeatable)',
    },
    {
      name: 'value',
      value: 'KEY=VALUE',
      repeatable: true,
      description: 'an organisation value for {{org.KEY}} (repeatable)',
    },
    {
      name: 'value-env',
      value: 'KEY=VAR',
      repeatable: true,
      description: 'the same, read from the environment variable VAR',
    },
    {
      name: 'user-value',
      value: 'KEY=VALUE',
      repeatable: true,
      description: 'your own value for {{user.KEY}} (repeatable)',
    },
    {
      name: 'user-value-env',
      value: 'KEY=VAR',
      repeatable: true,
      description: 'the same, read from the environment variable VAR',
    },
    {
      name: 'action',
      value: 'NAME:METHOD:PATH_REGEX:POLICY',
      repeatable: true,
      description: 'a recognised action (POLICY ALWAYS, ASK or DENY)',
    },
    { name: 'policy', value: 'POLICY', description: 'the policy for every other request (default ASK)' },
    { name: 'shared', description: "the app is the organisation's (every user), not only yours" },
  ],
  examples: [
    'toolbus apps add github --url "https://api\\.github\\.com/.*" --header "Authorization: Bearer {{user.token}}" --user-value-env token=GITHUB_TOKEN',
  ],
  async run({ operands: [name = ''], values, io }) {
    const urlPatterns = values.url ?? [];
    const headerLines = values.header ?? [];
    if (urlPatterns.length === 0 || headerLines.length === 0) {
      throw new UsageError({ message: 'give at least one --url and one --header.', usage: appsUsage });
    }
    const headers: Record<string, string> = {};
    for (const line of headerLines) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw new Error('Expected --header "Name: template".');
      headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
    }
    return withApps(io, async (apps, actor) => {
      const created = await apps.add(actor, {
        name,
        urlPatterns,
        headers,
        actions: (values.action ?? []).map(parseAction),
        defaultPolicy: parsePolicy(values.policy ?? 'ASK'),
        organizationValues: parsePairs(values.value ?? [], values['value-env'] ?? [], io.env),
        userValues: parsePairs(values['user-value'] ?? [], values['user-value-env'] ?? [], io.env),
        shared: values.shared === true,
      });
      io.stdout.write(
        `Connected ${name} (#${created.id}); run_python can now call it through the egress proxy.\n`,
      );
      return EXIT_CODES.ok;
    });
  },
});

const removeApp = defineAction({
  name: 'remove',
  forms: ['<name>'],
  summary: 'Removes a connected app.',
  operands: { first: 'an app name' },
  examples: ['toolbus apps remove github'],
  run: ({ operands: [name = ''], io }) =>
    withApps(io, async (apps, actor) => {
      try {
        await apps.remove(actor, name);
      } catch (error) {
        if (ServerError.isInstance(error) && error.code === 'not_found') {
          io.stderr.write(`toolbus apps remove: no app named "${name}".\n`);
          return EXIT_CODES.failure;
        }
        throw error;
      }
      io.stdout.write(`Removed ${name}.\n`);
      return EXIT_CODES.ok;
    }),
});

/** `toolbus apps`: connect, list and remove the APIs sandboxed code may call through the egress proxy. */
export const appsCommand = actionCommand({
  name: 'apps',
  synopsis: 'apps [list|add|remove]   APIs run_python may call (credentials added by the egress proxy)',
  usage: appsUsage,
  defaultAction: 'list',
  actions: [listApps, addApp, removeApp],
});
