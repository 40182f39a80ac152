import type { CliCommand } from './cli-command.ts';

/**
 * One command in the registry: its name at once, its module only when it runs (or its help is shown). `toolbus
 * serve` so loads the server and not the chat, research or egress commands with everything they import.
 */
export interface CommandEntry {
  /** The word after `toolbus`: the same as the loaded command's `name`. */
  readonly name: string;
  /** Imports the command's module. */
  load(): Promise<CliCommand>;
}

/**
 * Every `toolbus` command, in the order `toolbus --help` lists them. A new command is a file in this folder
 * exporting a {@link CliCommand} and one line here.
 */
export const COMMANDS: readonly CommandEntry[] = [
  { name: 'chat', load: async () => (await import('./chat-command.ts')).chatCommand },
  { name: 'research', load: async () => (await import('./research-command.ts')).researchCommand },
  { name: 'history', load: async () => (await import('./history-command.ts')).historyCommand },
  { name: 'index', load: async () => (await import('./index-command.ts')).indexCommand },
  { name: 'config', load: async () => (await import('./config-command.ts')).configCommand },
  { name: 'persona', load: async () => (await import('./persona-command.ts')).personaCommand },
  { name: 'mcp', load: async () => (await import('./mcp-command.ts')).mcpCommand },
  { name: 'openapi', load: async () => (await import('./openapi-command.ts')).openApiCommand },
  { name: 'files', load: async () => (await import('./files-command.ts')).filesCommand },
  { name: 'skills', load: async () => (await import('./skills-command.ts')).skillsCommand },
  { name: 'apps', load: async () => (await import('./apps-command.ts')).appsCommand },
  { name: 'egress', load: async () => (await import('./egress-command.ts')).egressCommand },
  { name: 'serve', load: async () => (await import('./serve-command.ts')).serveCommand },
  { name: 'gateway', load: async () => (await import('./gateway-command.ts')).gatewayCommand },
  { name: 'sandbox', load: async () => (await import('./sandbox-command.ts')).sandboxCommand },
];

/** Every command loaded, in the registry's order (for the full help and its tests). */
export function loadAllCommands(): Promise<CliCommand[]> {
  return Promise.all(COMMANDS.map((entry) => entry.load()));
}
