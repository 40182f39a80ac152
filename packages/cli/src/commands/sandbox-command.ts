import { join, resolve } from 'node:path';
import { privateFolderAbove, startInterpreterServer } from '@toolbus/interpreter';
import { loadCliConfig } from '../cli-config.ts';
import { EXIT_CODES } from '../exit-codes.ts';
import { shutdownSignal } from '../shutdown-signal.ts';
import { UsageError } from '../usage-error.ts';
import { actionCommand, defineAction } from './action-command.ts';

/** Where a root service works when the toolbus home is private (a root's home usually is). */
const systemWorkRoot = '/var/lib/toolbus/sandbox';

const usage = `Usage: toolbus sandbox serve [--port N] [--host 127.0.0.1] [--work-root DIR]

Runs the code-execution sandbox service (run_python) until Ctrl-C. Point chats at it with
\`toolbus config set sandboxUrl <url>\`; without it, chat starts one inside its own process.

Ctrl-C (SIGINT) or SIGTERM stops it: running code is ended, the workspaces are removed, and it exits 0. A second
signal exits at once, 130 after SIGINT and 143 after SIGTERM.

Options:
  --port <n>     port to listen on (default 8000; 0 picks a free one)
  --host <addr>  address to listen on (default 127.0.0.1)
  --work-root <dir>  where workspaces and stored files live (default: sandbox/ in the toolbus home, or
                 ${systemWorkRoot} for a root service whose home others may not traverse). It is
                 kept across restarts: a service started after a crash removes the workspace mounts,
                 folders and cgroups the crashed one left there. One service per work root.
`;

/**
 * The work root without --work-root: stable, so a restart finds what a killed service left. Under the toolbus home,
 * unless the service runs as root (each sandbox then runs as a uid of its own, which must reach the workspaces) and
 * a folder above is private: then a system folder only root can write.
 */
async function defaultWorkRoot(home: string): Promise<string> {
  const underHome = join(home, 'sandbox');
  if (process.getuid?.() !== 0 || (await privateFolderAbove(underHome)) === undefined) return underHome;
  return systemWorkRoot;
}

/** `toolbus sandbox serve`: the sandbox service in the foreground. */
const serveSandbox = defineAction({
  name: 'serve',
  forms: ['[--port N] [--host 127.0.0.1] [--work-root DIR]'],
  summary:
    'Runs the code-execution sandbox service (run_python) until Ctrl-C or SIGTERM (exit 0; a second signal exits at once, 130 or 143). Point chats at it with `toolbus config set sandboxUrl <url>`.',
  flags: [
    { name: 'port', value: '<n>', description: 'port to listen on (default 8000; 0 picks a free one)' },
    { name: 'host', value: '<addr>', description: 'address to listen on (default 127.0.0.1)' },
    {
      name: 'work-root',
      value: '<dir>',
      description:
        'where workspaces and stored files live (default: sandbox/ in the toolbus home); a restart removes what a crashed service left there',
    },
  ],
  examples: ['toolbus sandbox serve', 'toolbus sandbox serve --port 0'],
  async run({ values, io }) {
    const port = Number(values.port ?? '8000');
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      throw new UsageError({ message: '--port takes a number from 0 to 65535.', usage });
    }
    const workRoot =
      values['work-root'] === undefined
        ? await defaultWorkRoot(loadCliConfig({ env: io.env, tolerant: true }).home)
        : resolve(values['work-root']);
    const server = await startInterpreterServer({
      port,
      host: values.host ?? '127.0.0.1',
      workRoot,
      onLog: (line) => io.stderr.write(`${line}\n`),
    });
    // Listen for the stop signal before the first line is printed (see serve-command.ts).
    const stop = shutdownSignal(io, 'toolbus sandbox serve');
    io.stdout.write(`sandbox listening on ${server.url} (isolation: ${server.isolation.status})\n`);
    io.stdout.write(`  work root: ${workRoot}\n`);
    if (server.isolation.reason) io.stdout.write(`  ${server.isolation.reason}\n`);
    io.stdout.write(`Use it: toolbus config set sandboxUrl ${server.url}\n`);
    const signal = await stop.received;
    io.stdout.write(
      `toolbus sandbox serve: ${signal} received, ending running code and removing workspaces\n`,
    );
    await server.close();
    return EXIT_CODES.ok;
  },
});

/** `toolbus sandbox`: its one action is `serve`. */
export const sandboxCommand = actionCommand({
  name: 'sandbox',
  synopsis: 'sandbox serve [--port N]  run the code-execution sandbox service',
  usage,
  actions: [serveSandbox],
});
