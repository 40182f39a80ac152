import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createOpenApiTools } from '@toolbus/openapi';
import type { OpenApiAuth } from '@toolbus/spec';
import { omitUndefined, ToolbusError } from '@toolbus/spec';
import type { PersonaToolRow } from '@toolbus/storage';
import { parse as parseYaml } from 'yaml';
import { loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { createCliFetch } from '../create-cli-fetch.ts';
import { EXIT_CODES } from '../exit-codes.ts';
import { type CliWorkspace, withWorkspace } from '../open-workspace.ts';
import { unreadableFileReason } from '../unreadable-file.ts';
import { UsageError } from '../usage-error.ts';
import { actionCommand, defineAction } from './action-command.ts';

const usage = `Usage: toolbus openapi <action> [options]

An OpenAPI (3.0, 3.1) or Swagger 2.0 document gives a persona one tool per operation. Credentials are read from
an environment variable you name, stored encrypted, and never shown to the model.

  add <file|url> [options]   validate the document and add its operations (a URL is fetched through the guard)
  list                       the documents of the persona
  rm <name>                  remove a document's tools

Options of add:
  --name <name>               what to call it (default: the document's title)
  --bearer-env <NAME>         send the value of NAME as "Authorization: Bearer"
  --api-key-env <NAME>        send the value of NAME as the document's API key (--api-key-name, --api-key-in)
  --api-key-name <header>     the API key's header, query or cookie name (default: from the document)
  --api-key-in <where>        header | query | cookie (default: from the document)
  --basic-env <USER:PASS>     the variables holding a user name and a password (HTTP Basic)
  --persona <name>            add it to this persona (default: the one in use)
`;

/** The largest document `openapi add` reads (GitHub's full description is 13 MB). */
const maxDocumentBytes = 32 * 1024 * 1024;

const personaFlag = {
  name: 'persona',
  value: '<name>',
  description: 'the persona (default: the one in use)',
} as const;

/** The persona's OpenAPI rows, with the workspace open. */
function withDocuments(
  input: { readonly io: CliIo; readonly persona: string | undefined },
  use: (rows: readonly PersonaToolRow[], workspace: CliWorkspace) => Promise<number>,
): Promise<number> {
  return withWorkspace(
    loadCliConfig({ env: input.io.env }),
    async (workspace) => {
      const rows = await workspace.storage.personas.listToolRows(workspace.persona.id);
      return use(
        rows.filter((row) => row.source.kind === 'openapi'),
        workspace,
      );
    },
    { persona: input.persona },
  );
}

const addDocument = defineAction({
  name: 'add',
  forms: ['<file|url> [options]'],
  summary:
    'Validates an OpenAPI 3.0/3.1 or Swagger 2.0 document and gives the persona one tool per operation. A URL is fetched through the outbound guard; credentials come from environment variables you name, stored encrypted.',
  operands: { first: 'a file or URL' },
  flags: [
    { name: 'name', value: '<name>', description: "what to call it (default: the document's title)" },
    {
      name: 'bearer-env',
      value: '<NAME>',
      description: 'send the value of NAME as "Authorization: Bearer"',
    },
    {
      name: 'api-key-env',
      value: '<NAME>',
      description: "send the value of NAME as the document's API key",
    },
    {
      name: 'api-key-name',
      value: '<name>',
      description: "the API key's header, query or cookie name (default: from the document)",
    },
    {
      name: 'api-key-in',
      value: '<where>',
      description: 'header | query | cookie (default: from the document)',
    },
    {
      name: 'basic-env',
      value: '<USER:PASS>',
      description: 'the variables holding a user name and a password (HTTP Basic)',
    },
    { ...personaFlag, description: 'add it to this persona (default: the one in use)' },
  ],
  examples: [
    'toolbus openapi add ./petstore.yaml --api-key-env PETSTORE_KEY',
    'toolbus openapi add https://example.com/openapi.json --name example --bearer-env EXAMPLE_TOKEN',
  ],
  run: ({ operands: [target = ''], values, io }) =>
    withDocuments({ io, persona: values.persona }, async (rows, { storage, persona }) => {
      // Credentials first: a missing variable is said before anything is fetched.
      const auth = authFromFlags(values, io.env);
      const fetch = createCliFetch(loadCliConfig({ env: io.env }));
      try {
        const text = await readDocument(target, { cwd: io.cwd, fetch });
        const document = parseDocumentText(text, target);
        // Validates the document and the credentials against it before anything is stored.
        const tools = await createOpenApiTools({ document, fetch, ...omitUndefined({ auth }) });
        const info = (document as { info?: { title?: unknown } }).info;
        const name =
          values.name ?? (typeof info?.title === 'string' && info.title.trim() ? info.title.trim() : target);
        if (rows.some((row) => row.source.kind === 'openapi' && row.source.name === name)) {
          throw new ToolbusError({
            code: 'openapi_exists',
            message: `The persona "${persona.name}" already has "${name}"; remove it first (toolbus openapi rm "${name}") or pass --name.`,
          });
        }
        await storage.personas.addToolRow(persona.id, {
          kind: 'openapi',
          name,
          document,
          ...omitUndefined({ auth }),
        });
        io.stdout.write(`Added "${name}" to the persona "${persona.name}": ${tools.length} tool(s).\n`);
        return EXIT_CODES.ok;
      } finally {
        await fetch.close();
      }
    }),
});

const listDocuments = defineAction({
  name: 'list',
  forms: [''],
  summary: 'Lists the OpenAPI documents of the persona.',
  flags: [personaFlag],
  examples: ['toolbus openapi list'],
  run: ({ values, io }) =>
    withDocuments({ io, persona: values.persona }, async (rows, { persona }) => {
      if (rows.length === 0) io.stdout.write(`The persona "${persona.name}" has no OpenAPI documents.\n`);
      for (const row of rows) {
        if (row.source.kind !== 'openapi') continue;
        io.stdout.write(
          `${row.source.name}  ${operationCount(row.source.document)} operation(s)${row.source.auth ? `  auth: ${row.source.auth.type}` : ''}\n`,
        );
      }
      return EXIT_CODES.ok;
    }),
});

const removeDocument = defineAction({
  name: 'rm',
  forms: ['<name>'],
  summary: "Removes a document's tools from the persona.",
  operands: { first: 'a name' },
  flags: [personaFlag],
  examples: ['toolbus openapi rm petstore'],
  run: ({ operands: [target], values, io }) =>
    withDocuments({ io, persona: values.persona }, async (rows, { storage, persona }) => {
      const row = rows.find(
        (candidate) => candidate.source.kind === 'openapi' && candidate.source.name === target,
      );
      if (row === undefined) {
        throw new ToolbusError({
          code: 'openapi_not_found',
          message: `The persona "${persona.name}" has no OpenAPI document named "${target}".`,
        });
      }
      await storage.personas.removeToolRow(row.id);
      io.stdout.write(`Removed "${target}" from the persona "${persona.name}".\n`);
      return EXIT_CODES.ok;
    }),
});

/** `toolbus openapi`: add, list and remove OpenAPI documents of a persona. */
export const openApiCommand = actionCommand({
  name: 'openapi',
  synopsis: 'openapi add|list|rm     OpenAPI documents as tools',
  usage,
  defaultAction: 'list',
  actions: [addDocument, listDocuments, removeDocument],
});

async function readDocument(
  target: string,
  options: { readonly cwd: string; readonly fetch: ReturnType<typeof createCliFetch> },
): Promise<string> {
  if (/^https?:\/\//i.test(target)) {
    const response = await options.fetch(target, {
      headers: { accept: 'application/json, application/yaml' },
    });
    if (!response.ok) {
      throw new ToolbusError({
        code: 'openapi_fetch_failed',
        message: `${target} answered ${response.status}.`,
      });
    }
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > maxDocumentBytes) throw tooLarge(target);
    const text = await response.text();
    if (text.length > maxDocumentBytes) throw tooLarge(target);
    return text;
  }
  return readFile(resolve(options.cwd, target), 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new ToolbusError({
      code: 'openapi_unreadable',
      message: `${target}: ${unreadableFileReason(error)}`,
    });
  });
}

function tooLarge(target: string): ToolbusError {
  return new ToolbusError({
    code: 'openapi_too_large',
    message: `${target} is larger than ${maxDocumentBytes / 1024 / 1024} MB.`,
  });
}

function parseDocumentText(text: string, target: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = text.trimStart().startsWith('{') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ToolbusError({
      code: 'openapi_invalid',
      message: `${target} is neither JSON nor YAML: ${(error as Error).message}`,
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ToolbusError({
      code: 'openapi_invalid',
      message: `${target} does not hold an OpenAPI document.`,
    });
  }
  return parsed as Record<string, unknown>;
}

function authFromFlags(
  values: {
    'bearer-env'?: string;
    'api-key-env'?: string;
    'api-key-name'?: string;
    'api-key-in'?: string;
    'basic-env'?: string;
  },
  env: CliIo['env'],
): OpenApiAuth | undefined {
  const read = (variable: string, flag: string): string => {
    const value = env[variable];
    if (!value) {
      throw new ToolbusError({
        code: 'openapi_variable_missing',
        message: `${flag} names the variable ${variable}, which is not set in this environment.`,
      });
    }
    return value;
  };
  const given = [values['bearer-env'], values['api-key-env'], values['basic-env']].filter(Boolean);
  if (given.length > 1) {
    throw new UsageError({ message: 'choose one of --bearer-env, --api-key-env and --basic-env.', usage });
  }
  if (values['bearer-env']) return { type: 'bearer', token: read(values['bearer-env'], '--bearer-env') };
  if (values['api-key-env']) {
    const where = values['api-key-in'] as 'header' | 'query' | 'cookie' | undefined;
    if (where !== undefined && where !== 'header' && where !== 'query' && where !== 'cookie') {
      throw new UsageError({ message: `--api-key-in takes header, query or cookie, not "${where}".`, usage });
    }
    return {
      type: 'api-key',
      value: read(values['api-key-env'], '--api-key-env'),
      ...omitUndefined({ name: values['api-key-name'] || undefined, in: where }),
    };
  }
  if (values['basic-env']) {
    const [user, pass] = values['basic-env'].split(':');
    if (!user || !pass) throw new UsageError({ message: '--basic-env takes USERVAR:PASSVAR.', usage });
    return { type: 'basic', username: read(user, '--basic-env'), password: read(pass, '--basic-env') };
  }
  return undefined;
}

const methods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

function operationCount(document: unknown): number {
  const paths = (document as { paths?: Record<string, Record<string, unknown>> }).paths ?? {};
  return Object.values(paths).reduce(
    (count, item) => count + Object.keys(item ?? {}).filter((key) => methods.has(key)).length,
    0,
  );
}
