import { appsCommand } from './apps-command.ts';
import { chatCommand } from './chat-command.ts';
import type { CliCommand } from './cli-command.ts';
import { configCommand } from './config-command.ts';
import { egressCommand } from './egress-command.ts';
import { filesCommand } from './files-command.ts';
import { gatewayCommand } from './gateway-command.ts';
import { historyCommand } from './history-command.ts';
import { indexCommand } from './index-command.ts';
import { mcpCommand } from './mcp-command.ts';
import { openApiCommand } from './openapi-command.ts';
import { personaCommand } from './persona-command.ts';
import { researchCommand } from './research-command.ts';
import { sandboxCommand } from './sandbox-command.ts';
import { serveCommand } from './serve-command.ts';
import { skillsCommand } from './skills-command.ts';

/**
 * Every `toolbus` command, in the order `toolbus --help` lists them. A new command is a file in this folder
 * exporting a {@link CliCommand} and one line here.
 */
export const COMMANDS: readonly CliCommand[] = [
  chatCommand,
  researchCommand,
  historyCommand,
  indexCommand,
  configCommand,
  personaCommand,
  mcpCommand,
  openApiCommand,
  filesCommand,
  skillsCommand,
  appsCommand,
  egressCommand,
  serveCommand,
  gatewayCommand,
  sandboxCommand,
];
