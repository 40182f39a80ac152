import { startInterpreterServer } from '@toolbus/interpreter';
import type { CliIo } from '../cli-io.ts';
import { EXIT_CODES } from '../exit-codes.ts';
import { parseCommandArgs } from '../parse-command-args.ts';
import { UsageError } from '../usage-error.ts';
import type { CliCommand } from './cli-command.ts';
import type { CliSubcommand } from './cli-subcommand.ts';

const usage = `Usage: toolbus sandbox serve [--port N] [--host 127.0.0.1]

Runs the code-execution sandbox service (run_python) until Ctrl-C. Point chats at it with
\`toolbus config set sandboxUrl <url>\`; without it, chat starts one inside its own process.

Options:
  --port <n>     port to listen on (default 8000; 0 picks a free one)
  --host <addr>  address to listen on (default 127.0.0.1)
`;

/** The one subcommand of `toolbus sandbox`. */
const sandboxSubcommands: readonly CliSubcommand[] = [
  {
    name: 'serve',
    forms: ['[--port N] [--host 127.0.0.1]'],
    summary:
      'Runs the code-execution sandbox service (run_python) until Ctrl-C. Point chats at it with `toolbus config set sandboxUrl <url>`.',
    flags: [
      { name: 'port', value: '<n>', description: 'port to listen on (default 8000; 0 picks a free one)' },
      { name: 'host', value: '<addr>', description: 'address to listen on (default 127.0.0.1)' },
    ],
    examples: ['toolbus sandbox serve', 'toolbus sandbox serve --port 0'],
  },
];

/** `toolbus sandbox serve`: the sandbox service in the foreground. */
export const sandboxCommand: CliCommand = {
  name: 'sandbox',
  subcommands: sandboxSubcommands,
  synopsis: 'sandbox serve [--port N]  run the code-execution sandbox service',
  usage,
  async run(argv: readonly string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs({
      argv,
      usage,
      options: { port: { type: 'string', default: '8000' }, host: { type: 'string', default: '127.0.0.1' } },
    });
    if (positionals[0] !== 'serve' || positionals.length > 1) {
      throw new UsageError({ message: 'toolbus sandbox: the only action is "serve".', usage });
    }
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      throw new UsageError({ message: '--port takes a number from 0 to 65535.', usage });
    }
    const server = await startInterpreterServer({
      port,
      host: values.host,
      onLog: (line) => io.stderr.write(`${line}\n`),
    });
    io.stdout.write(`sandbox listening on ${server.url} (isolation: ${server.isolation.status})\n`);
    if (server.isolation.reason) io.stdout.write(`  ${server.isolation.reason}\n`);
    io.stdout.write(`Use it: toolbus config set sandboxUrl ${server.url}\n`);
    await new Promise<void>((resolve) => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
    });
    await server.close();
    return EXIT_CODES.ok;
  },
};
