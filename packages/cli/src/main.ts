import { startInterpreterServer } from '@toolbus/interpreter';
import { runSkillsCommand } from '@toolbus/skills';
import { ToolbusError } from '@toolbus/spec';
import { loadCliConfig } from './cli-config.ts';
import type { CliIo } from './cli-io.ts';
import { chatUsage, runChatCommand } from './commands/chat-command.ts';
import { configUsage, runConfigCommand } from './commands/config-command.ts';
import { indexUsage, runIndexCommand } from './commands/index-command.ts';
import { runServeCommand } from './commands/serve-command.ts';
import { skillsDataDirectory } from './load-skills.ts';

const usage = `toolbus — connect LLMs to tools

Usage:
  toolbus chat ["question"]        ask with tools (interactive without a question)
  toolbus index <folder|file>...   index documents for internal_search
  toolbus config [show|set|unset]  where settings and keys live
  toolbus skills <command>         validate, add and list skill bundles
  toolbus sandbox serve [--port N] run the code-execution sandbox service
  toolbus serve [--port N]         the HTTP server: chats, admin API, /openapi.json

Run \`toolbus <command> --help\` for a command's options.
`;

/** Runs the `toolbus` command line; resolves to the exit code. Errors become one actionable line, not a trace. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'chat':
        return await runChatCommand(rest, io);
      case 'index':
        return await runIndexCommand(rest, io);
      case 'config':
        return await runConfigCommand(rest, io);
      case 'skills':
        // Skills live under the toolbus home unless TOOLBUS_DATA_DIR (or --data-dir) says otherwise.
        return await runSkillsCommand(rest, {
          stdout: io.stdout,
          stderr: io.stderr,
          environment: {
            ...io.env,
            TOOLBUS_DATA_DIR: skillsDataDirectory(loadCliConfig({ env: io.env }), io.env),
          },
        });
      case 'serve':
        return await runServeCommand(rest, io);
      case 'sandbox':
        return await runSandboxCommand(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout.write(usage);
        return command === undefined ? 2 : 0;
      default:
        io.stderr.write(`toolbus: unknown command "${command}".\n\n${usage}`);
        return 2;
    }
  } catch (error) {
    io.stderr.write(`toolbus: ${describeError(error)}\n`);
    return 1;
  }
}

async function runSandboxCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== 'serve') {
    io.stderr.write('Usage: toolbus sandbox serve [--port N] [--host 127.0.0.1]\n');
    return 2;
  }
  const portIndex = rest.indexOf('--port');
  const hostIndex = rest.indexOf('--host');
  const port = portIndex >= 0 ? Number(rest[portIndex + 1]) : 8000;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    io.stderr.write('toolbus sandbox serve: --port takes a number from 0 to 65535.\n');
    return 2;
  }
  const server = await startInterpreterServer({
    port,
    host: hostIndex >= 0 ? (rest[hostIndex + 1] ?? '127.0.0.1') : '127.0.0.1',
    onLog: (line) => io.stderr.write(`${line}\n`),
  });
  io.stdout.write(`sandbox listening on ${server.url} (isolation: ${server.isolation.status})\n`);
  if (server.isolation.reason) io.stdout.write(`  ${server.isolation.reason}\n`);
  io.stdout.write(`Use it: toolbus config set sandboxUrl ${server.url}\n`);
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  await server.close();
  return 0;
}

function describeError(error: unknown): string {
  if (ToolbusError.isInstance(error)) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

export { chatUsage, configUsage, indexUsage };
