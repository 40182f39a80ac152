import { resolve } from 'node:path';
import { ToolbusError } from '@toolbus/spec';
import { loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { EXIT_CODES } from '../exit-codes.ts';
import { openWorkspace } from '../open-workspace.ts';
import { parseCommandArgs } from '../parse-command-args.ts';
import { UsageError } from '../usage-error.ts';
import { DEFAULT_OUTPUT_DIRECTORY, writeStoredFiles } from '../write-tool-files.ts';
import type { CliCommand } from './cli-command.ts';
import type { CliSubcommand } from './cli-subcommand.ts';

const usage = `Usage: toolbus files <action> [options]

Files you attached (--file) and files tools produced (charts, images, CSVs). Chat writes the produced ones to
./${DEFAULT_OUTPUT_DIRECTORY} as they are made; these commands find them again.

  list                         every stored file: id, name, type, size, when
  get <id>... [--output DIR]   write these files to DIR (default ./${DEFAULT_OUTPUT_DIRECTORY}) and print the paths
`;

/** The subcommands of `toolbus files`, each with its own help and flags. */
const filesSubcommands: readonly CliSubcommand[] = [
  {
    name: 'list',
    forms: [''],
    summary: 'Lists every stored file: id, name, type, size, when.',
    examples: ['toolbus files list'],
  },
  {
    name: 'get',
    forms: ['<id>... [--output DIR]'],
    summary: `Writes these files to DIR (default ./${DEFAULT_OUTPUT_DIRECTORY}) and prints their paths.`,
    flags: [
      {
        name: 'output',
        value: '<DIR>',
        description: `where to write them (default ./${DEFAULT_OUTPUT_DIRECTORY})`,
      },
    ],
    examples: ['toolbus files get 3f2a9c', 'toolbus files get 3f2a9c 81b0de --output ./charts'],
  },
];

/** `toolbus files list|get`: the stored files of the local user. */
export const filesCommand: CliCommand = {
  name: 'files',
  subcommands: filesSubcommands,
  synopsis: 'files list|get           files attached or made by tools',
  usage,
  async run(argv: readonly string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs({
      argv,
      usage,
      options: { output: { type: 'string' } },
    });
    const [action = 'list', ...ids] = positionals;
    if (action !== 'list' && action !== 'get')
      throw new UsageError({ message: `unknown action "${action}".`, usage });
    if (action === 'get' && ids.length === 0)
      throw new UsageError({ message: 'get needs a file id.', usage });
    const workspace = await openWorkspace(loadCliConfig({ env: io.env }));
    try {
      const files = await workspace.storage.files.listForUser(workspace.user.id);
      if (action === 'list') {
        if (files.length === 0) io.stdout.write('No files.\n');
        for (const file of files) {
          io.stdout.write(
            `${file.id}  ${file.name}  ${file.mediaType}  ${file.sizeBytes} bytes  ${file.createdAt}\n`,
          );
        }
        return EXIT_CODES.ok;
      }
      const wanted = ids.map((id) => {
        const file = files.find((candidate) => candidate.id === id);
        if (file === undefined) {
          throw new ToolbusError({
            code: 'file_not_found',
            message: `No file ${id}; \`toolbus files list\` shows the ids.`,
          });
        }
        return { fileId: file.id, name: file.name };
      });
      const written = await writeStoredFiles({
        files: wanted,
        storage: workspace.storage,
        directory: resolve(io.cwd, values.output ?? DEFAULT_OUTPUT_DIRECTORY),
      });
      for (const path of written) io.stdout.write(`${path}\n`);
      return EXIT_CODES.ok;
    } finally {
      await workspace.close();
    }
  },
};
