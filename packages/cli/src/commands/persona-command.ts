import { BUILT_IN_TOOLS, BUILT_IN_TOOLS_BY_ID, BUILT_IN_TOOLS_BY_NAME } from '@toolbus/core';
import { omitUndefined, ToolbusError } from '@toolbus/spec';
import { type Persona, type PersonaToolRow, personaNameKey, type Storage } from '@toolbus/storage';
import { loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { EXIT_CODES } from '../exit-codes.ts';
import {
  ACTIVE_PERSONA_SETTING,
  type CliWorkspace,
  DEFAULT_PERSONA_NAME,
  withWorkspace,
} from '../open-workspace.ts';
import { UsageError } from '../usage-error.ts';
import { actionCommand, defineAction } from './action-command.ts';

const usage = `Usage: toolbus persona <action> [options]

A persona is a named set of tools: built-in tools, OpenAPI documents (toolbus openapi add) and MCP servers
(toolbus mcp add). Chats use the persona chosen with \`use\` (or --persona on chat).

  list                                  the personas; * marks the one in use
  create <name> [--description <text>] [--tools <names> | --no-built-ins]
                                        a new persona with every built-in tool (or only these, or none)
  show [<name>]                         its tools (default: the one in use)
  use <name>                            chats use this persona from now on
  rm <name>                             delete it (its MCP servers stay; toolbus mcp rm removes them)
`;

/** Runs `use` with the CLI's stores open. */
function withStorage(
  io: CliIo,
  use: (storage: Storage, workspace: CliWorkspace) => Promise<number>,
): Promise<number> {
  return withWorkspace(loadCliConfig({ env: io.env }), (workspace) => use(workspace.storage, workspace));
}

const listPersonas = defineAction({
  name: 'list',
  forms: [''],
  summary: 'Lists the personas; * marks the one in use.',
  examples: ['toolbus persona list'],
  run: ({ io }) =>
    withStorage(io, async (storage, workspace) => {
      for (const persona of await storage.personas.list()) {
        const marker = persona.id === workspace.persona.id ? '*' : ' ';
        const rows = await storage.personas.listToolRows(persona.id);
        io.stdout.write(
          `${marker} ${persona.name}  (${rows.length} tool source${rows.length === 1 ? '' : 's'})${persona.description ? `  ${persona.description}` : ''}\n`,
        );
      }
      return EXIT_CODES.ok;
    }),
});

const createPersona = defineAction({
  name: 'create',
  forms: ['<name> [--description <text>] [--tools <names> | --no-built-ins]'],
  summary: 'Creates a persona with every built-in tool, only the ones named, or none.',
  operands: { first: 'a persona name' },
  flags: [
    { name: 'description', value: '<text>', description: 'what the persona is for' },
    { name: 'tools', value: '<names>', description: 'only these built-in tools (comma-separated)' },
    {
      name: 'no-built-ins',
      description: 'no built-in tools (add MCP servers and OpenAPI documents to it)',
    },
  ],
  examples: [
    'toolbus persona create research --tools internal_search,web_search',
    'toolbus persona create mcp --no-built-ins',
  ],
  run: ({ operands: [name], values, io }) =>
    withStorage(io, async (storage) => {
      const builtIns = values['no-built-ins']
        ? []
        : values.tools === undefined
          ? BUILT_IN_TOOLS.map((entry) => entry.id)
          : builtInIds(values.tools);
      const persona = await storage.personas.create({
        name: name as string,
        ...omitUndefined({ description: values.description }),
      });
      for (const builtInId of builtIns) {
        await storage.personas.addToolRow(persona.id, { kind: 'built-in', builtInId });
      }
      io.stdout.write(
        `Created persona "${persona.name}" with ${builtIns.length} built-in tool(s). Use it: toolbus persona use ${persona.name}\n`,
      );
      return EXIT_CODES.ok;
    }),
});

const showPersona = defineAction({
  name: 'show',
  forms: ['[<name>]'],
  summary: "Shows a persona's tools (default: the one in use).",
  operands: { first: 'a persona name', optional: true },
  examples: ['toolbus persona show', 'toolbus persona show research'],
  run: ({ operands: [name], io }) =>
    withStorage(io, async (storage, workspace) => {
      const persona = name === undefined ? workspace.persona : await findPersona(storage, name);
      io.stdout.write(`${persona.name}${persona.description ? ` — ${persona.description}` : ''}\n`);
      for (const line of await describeRows(storage, await storage.personas.listToolRows(persona.id))) {
        io.stdout.write(`  ${line}\n`);
      }
      return EXIT_CODES.ok;
    }),
});

const usePersona = defineAction({
  name: 'use',
  forms: ['<name>'],
  summary: 'Chats use this persona from now on.',
  operands: { first: 'a persona name' },
  examples: ['toolbus persona use research'],
  run: ({ operands: [name], io }) =>
    withStorage(io, async (storage) => {
      const persona = await findPersona(storage, name as string);
      await storage.settings.set(ACTIVE_PERSONA_SETTING, persona.name);
      io.stdout.write(`Chats now use the persona "${persona.name}".\n`);
      return EXIT_CODES.ok;
    }),
});

const removePersona = defineAction({
  name: 'rm',
  forms: ['<name>'],
  summary: 'Deletes the persona (its MCP servers stay; `toolbus mcp rm` removes them).',
  operands: { first: 'a persona name' },
  examples: ['toolbus persona rm research'],
  run: ({ operands: [name], io }) =>
    withStorage(io, async (storage) => {
      if (personaNameKey(name as string) === DEFAULT_PERSONA_NAME) {
        throw new ToolbusError({
          code: 'persona_protected',
          message: 'The default persona cannot be removed (it is what chats fall back to).',
        });
      }
      const persona = await findPersona(storage, name as string);
      await storage.personas.delete(persona.id);
      if ((await storage.settings.get(ACTIVE_PERSONA_SETTING)) === persona.name) {
        await storage.settings.delete(ACTIVE_PERSONA_SETTING);
      }
      io.stdout.write(`Removed persona "${persona.name}".\n`);
      return EXIT_CODES.ok;
    }),
});

/** `toolbus persona`: list, create, show, use and remove personas. */
export const personaCommand = actionCommand({
  name: 'persona',
  synopsis: 'persona list|create|show|use|rm   named tool sets',
  usage,
  defaultAction: 'list',
  actions: [listPersonas, createPersona, showPersona, usePersona, removePersona],
});

/** The stored persona called `name`; an unknown name is an error listing the known ones. */
export async function findPersona(storage: Storage, name: string): Promise<Persona> {
  const personas = await storage.personas.list();
  // Names are unique ignoring case and surrounding spaces, so this finds at most one.
  const persona = personas.find((candidate) => personaNameKey(candidate.name) === personaNameKey(name));
  if (persona === undefined) {
    throw new ToolbusError({
      code: 'persona_not_found',
      message: `No persona named "${name}". Known personas: ${personas.map((known) => known.name).join(', ')}.`,
    });
  }
  return persona;
}

function builtInIds(list: string): string[] {
  return list
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)
    .map((name) => {
      const entry = BUILT_IN_TOOLS_BY_NAME.get(name);
      if (entry === undefined) {
        throw new UsageError({
          message: `unknown built-in tool "${name}" (built-in tools: ${BUILT_IN_TOOLS.map((tool) => tool.name).join(', ')}).`,
          usage,
        });
      }
      return entry.id;
    });
}

async function describeRows(storage: Storage, rows: readonly PersonaToolRow[]): Promise<string[]> {
  const lines: string[] = [];
  const mcp = new Map<string, string[]>();
  for (const row of rows) {
    const source = row.source;
    if (source.kind === 'built-in') {
      lines.push(`built-in  ${BUILT_IN_TOOLS_BY_ID.get(source.builtInId)?.name ?? source.builtInId}`);
    } else if (source.kind === 'openapi') {
      lines.push(`openapi   ${source.name}${source.auth ? ` (auth: ${source.auth.type})` : ''}`);
    } else {
      const list = mcp.get(source.serverId) ?? [];
      list.push(source.toolName);
      mcp.set(source.serverId, list);
    }
  }
  for (const [serverId, tools] of mcp) {
    const server = await storage.mcpServers.get(serverId);
    lines.push(`mcp       ${server?.name ?? serverId}: ${tools.join(', ')}`);
  }
  if (lines.length === 0) lines.push('(no tools)');
  return lines;
}
