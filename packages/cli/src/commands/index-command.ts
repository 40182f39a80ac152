import { DocumentAdmin } from '@toolbus/server';
import { describeSkipCounts } from '@toolbus/tools';
import { loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { openWorkspace } from '../open-workspace.ts';
import { parseCommandArgs } from '../parse-command-args.ts';
import { createProgressBar } from '../progress-bar.ts';
import { UsageError } from '../usage-error.ts';
import type { CliCommand } from './cli-command.ts';

const indexUsage = `Usage: toolbus index <folder or file>... [--json]

Indexes Markdown, text, HTML, PDF and JSON files for internal_search. Incremental: unchanged files are skipped,
deleted ones are removed from the index. Other types, binary content (whatever the name says) and files with no
text after extraction (scanned PDFs) are skipped and counted, with the reason. Exit 1 when a file failed.
`;

const maxListed = 20;

/** `toolbus index <paths...>`: indexes documents with a progress bar; exit 1 when any file failed. */
export const indexCommand: CliCommand = {
  name: 'index',
  synopsis: 'index <folder|file>...   index documents for internal_search',
  usage: indexUsage,
  run: (argv, io) => runIndexCommand(argv, io),
};

async function runIndexCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    argv,
    usage: indexUsage,
    options: { json: { type: 'boolean', default: false } },
  });
  if (positionals.length === 0) {
    throw new UsageError({ message: 'name at least one folder or file.', usage: indexUsage });
  }
  const config = loadCliConfig({ env: io.env });
  const workspace = await openWorkspace(config);
  try {
    const progress = createProgressBar({
      write: (text) => io.stderr.write(text),
      interactive: Boolean(io.stdout.isTTY),
    });
    // The shared operation (the server's admin routes index through the same DocumentAdmin).
    const documents = new DocumentAdmin({ index: workspace.index });
    const result = await documents.indexPaths(
      positionals.map((path) => (path.startsWith('/') ? path : `${io.cwd}/${path}`)),
      ({ done, total, path }) => progress.update(done, total, path),
    );
    progress.finish();
    const counts = await documents.counts();
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ ...result, index: counts })}\n`);
    } else {
      // Indexed, skipped and failed are counted apart: a skipped file is not in the index.
      io.stdout.write(
        `Indexed ${result.indexed} file(s): ${result.added} added, ${result.updated} updated, ${result.unchanged} unchanged; ` +
          `${result.skipped.length} skipped, ${result.failed.length} failed; ${result.removed} removed from the index.\n` +
          `The index now holds ${counts.documents} document(s) in ${counts.chunks} chunk(s) (${config.indexFile}).\n`,
      );
      if (result.skipped.length > 0) {
        io.stdout.write(`Skipped ${result.skipped.length} file(s): ${describeSkipCounts(result.skipped)}.\n`);
        for (const item of result.skipped.slice(0, maxListed))
          io.stdout.write(`  skipped ${item.path}: ${item.detail}\n`);
        if (result.skipped.length > maxListed)
          io.stdout.write(`  … and ${result.skipped.length - maxListed} more (--json lists all)\n`);
      }
      if (result.failed.length > 0) io.stderr.write(`Failed ${result.failed.length} file(s):\n`);
      for (const failure of result.failed) io.stderr.write(`  failed ${failure.path}: ${failure.reason}\n`);
    }
    return result.failed.length > 0 ? 1 : 0;
  } finally {
    await workspace.close();
  }
}
