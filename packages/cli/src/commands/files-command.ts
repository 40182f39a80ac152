import { resolve } from 'node:path';
import { ToolbusError } from '@toolbus/spec';
import { loadCliConfig } from '../cli-config.ts';
import { EXIT_CODES } from '../exit-codes.ts';
import { withWorkspace } from '../open-workspace.ts';
import { DEFAULT_OUTPUT_DIRECTORY, writeStoredFiles } from '../write-tool-files.ts';
import { actionCommand, defineAction } from './action-command.ts';

const usage = `Usage: toolbus files <action> [options]

Files you attached (--file) and files tools produced (charts, images, CSVs). Chat writes the produced ones to
./${DEFAULT_OUTPUT_DIRECTORY} as they are made; these commands find them again.

  list                         every stored file: id, name, type, size, when
  get <id>... [--output DIR]   write these files to DIR (default ./${DEFAULT_OUTPUT_DIRECTORY}) and print the paths
`;

const listFiles = defineAction({
  name: 'list',
  forms: [''],
  summary: 'Lists every stored file: id, name, type, size, when.',
  examples: ['toolbus files list'],
  run: ({ io }) =>
    withWorkspace(loadCliConfig({ env: io.env }), async ({ storage, user }) => {
      const files = await storage.files.listForUser(user.id);
      if (files.length === 0) io.stdout.write('No files.\n');
      for (const file of files) {
        io.stdout.write(
          `${file.id}  ${file.name}  ${file.mediaType}  ${file.sizeBytes} bytes  ${file.createdAt}\n`,
        );
      }
      return EXIT_CODES.ok;
    }),
});

const getFiles = defineAction({
  name: 'get',
  forms: ['<id>... [--output DIR]'],
  summary: `Writes these files to DIR (default ./${DEFAULT_OUTPUT_DIRECTORY}) and prints their paths.`,
  operands: { first: 'a file id', most: Number.POSITIVE_INFINITY },
  flags: [
    {
      name: 'output',
      value: '<DIR>',
      description: `where to write them (default ./${DEFAULT_OUTPUT_DIRECTORY})`,
    },
  ],
  examples: ['toolbus files get 3f2a9c', 'toolbus files get 3f2a9c 81b0de --output ./charts'],
  run: ({ operands, values, io }) =>
    withWorkspace(loadCliConfig({ env: io.env }), async ({ storage, user }) => {
      const files = await storage.files.listForUser(user.id);
      const wanted = operands.map((id) => {
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
        storage,
        directory: resolve(io.cwd, values.output ?? DEFAULT_OUTPUT_DIRECTORY),
      });
      for (const path of written) io.stdout.write(`${path}\n`);
      return EXIT_CODES.ok;
    }),
});

/** `toolbus files list|get`: the stored files of the local user. */
export const filesCommand = actionCommand({
  name: 'files',
  synopsis: 'files list|get           files attached or made by tools',
  usage,
  defaultAction: 'list',
  actions: [listFiles, getFiles],
});
