import { parseArgs } from 'node:util';
import { indexPaths } from '@toolbus/tools';
import { loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { openWorkspace } from '../open-workspace.ts';
import { createProgressBar } from '../progress-bar.ts';

export const indexUsage = `Usage: toolbus index <folder or file>... [--json]

Indexes Markdown, text, HTML, PDF and JSON files for internal_search. Incremental: unchanged files are skipped,
deleted ones are removed from the index.
`;

/** `toolbus index <paths...>`: indexes documents with a progress bar; exit 1 when any file failed. */
export async function runIndexCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.stdout.write(indexUsage);
    return 0;
  }
  if (positionals.length === 0) {
    io.stderr.write(`toolbus index: name at least one folder or file.\n\n${indexUsage}`);
    return 2;
  }
  const config = loadCliConfig({ env: io.env });
  const workspace = await openWorkspace(config);
  try {
    const progress = createProgressBar({
      write: (text) => io.stderr.write(text),
      interactive: Boolean(io.stdout.isTTY),
    });
    const result = await indexPaths({
      index: workspace.index,
      paths: positionals.map((path) => (path.startsWith('/') ? path : `${io.cwd}/${path}`)),
      onProgress: ({ done, total, path }) => progress.update(done, total, path),
    });
    progress.finish();
    const counts = workspace.index.counts();
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ ...result, index: counts })}\n`);
    } else {
      io.stdout.write(
        `Indexed ${result.files} file(s): ${result.added} added, ${result.updated} updated, ${result.unchanged} unchanged, ${result.removed} removed.\n` +
          `The index now holds ${counts.documents} document(s) in ${counts.chunks} chunk(s) (${config.indexFile}).\n`,
      );
      for (const failure of result.failed) io.stderr.write(`  skipped ${failure.path}: ${failure.reason}\n`);
    }
    return result.failed.length > 0 ? 1 : 0;
  } finally {
    await workspace.close();
  }
}
