import { DocumentAdmin } from '@toolbus/server';
import { describeSkipCounts } from '@toolbus/tools';
import { loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { openWorkspace } from '../open-workspace.ts';
import { parseCommandArgs } from '../parse-command-args.ts';
import { createProgressBar } from '../progress-bar.ts';
import { shutdownSignal, signalExitCode } from '../shutdown-signal.ts';
import { UsageError } from '../usage-error.ts';
import type { CliCommand } from './cli-command.ts';

const indexUsage = `Usage: toolbus index <folder or file>... [--json]

Indexes Markdown, text, HTML, PDF and JSON files for internal_search. Incremental: unchanged files are skipped,
deleted ones are removed from the index. Other types, binary content (whatever the name says) and files with no
text after extraction (scanned PDFs) are skipped and counted, with the reason. Exit 1 when a file failed.

Ctrl-C (SIGINT) or SIGTERM stops it after the file in flight (each file is written whole or not at all), says on
stderr how many files were done and how, and exits 130 (143 after SIGTERM); run it again to index the rest. A
second Ctrl-C or SIGTERM exits at once.
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
  // Until here a signal ends the process at once (nothing is written yet); from here it stops the run between two
  // files, and the index is closed as usual.
  const stop = shutdownSignal(io, 'toolbus index');
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
      stop.signal,
    );
    progress.finish();
    if (result.stopped) {
      const { done, skipped, failed } = result.stopped;
      const signal = await stop.received;
      io.stderr.write(
        `toolbus index: stopped by ${signal} after ${done} of ${result.files} files ` +
          `(${result.added} added, ${result.updated} updated, ${result.unchanged} unchanged, ${skipped} skipped, ` +
          `${failed} failed); run it again to index the rest.\n`,
      );
      return signalExitCode(signal);
    }
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
    // A signal after the last file stopped nothing (all is done and said) but still ends the command as stopped.
    if (stop.signal.aborted) return signalExitCode(await stop.received);
    return result.failed.length > 0 ? 1 : 0;
  } finally {
    try {
      await workspace.close();
    } finally {
      stop.dispose();
    }
  }
}
