import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { minimalPdf } from '@toolbus/tools/testing';
import { useCliHome } from './__fixtures__/cli-home.ts';
import { spawnCli } from './__fixtures__/spawn-cli.ts';

describe('toolbus index', () => {
  const cli = useCliHome({ prefix: 'toolbus-index-' });

  test('skips binary content and files without text, with counts and reasons; no PDF.js warnings', async () => {
    const docs = join(cli.home, 'docs');
    await mkdir(docs);
    await writeFile(join(docs, 'notes.md'), '# Notes\n\nThe warehouse opens at eight.\n');
    await writeFile(
      join(docs, 'report.pdf'),
      minimalPdf(['Quarterly revenue grew'], 'Report', { brokenXref: true }),
    );
    await writeFile(join(docs, 'scan.pdf'), minimalPdf([]));
    await writeFile(
      join(docs, 'renamed.txt'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
    );
    await writeFile(join(docs, 'photo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    // Text named .pdf: the summary counts it as what its own line says, not as binary.
    await writeFile(join(docs, 'fake.pdf'), 'Just some notes, saved with the wrong name.\n');
    const result = await spawnCli(['index', docs], { TOOLBUS_HOME: cli.home });
    assert.equal(result.code, 0, result.stderr);
    // Skipped files are counted apart from indexed ones (two files are in the index, not four or five).
    assert.match(result.stdout, /Indexed 2 file\(s\): 2 added, 0 updated, 0 unchanged; 4 skipped, 0 failed;/);
    assert.match(
      result.stdout,
      /Skipped 4 file\(s\): 1 of a type that is not indexed, 1 binary \(not text\), 1 named \.pdf but not a PDF, 1 with no text after extraction\./,
    );
    assert.match(result.stdout, /skipped .*fake\.pdf: not a PDF \(no %PDF- signature\)/);
    assert.match(result.stdout, /skipped .*photo\.png: \.png files are not indexed/);
    assert.match(result.stdout, /skipped .*renamed\.txt: the content is binary, not text/);
    assert.match(result.stdout, /skipped .*scan\.pdf: no readable text after extraction/);
    assert.doesNotMatch(result.stdout + result.stderr, /Warning|Indexing all PDF objects/);
    const json = await spawnCli(['index', '--json', docs], { TOOLBUS_HOME: cli.home });
    const parsed = JSON.parse(json.stdout);
    assert.deepEqual(parsed.skipped.map((item: { reason: string }) => item.reason).sort(), [
      'binary',
      'no-text',
      'not-pdf',
      'unsupported',
    ]);
    assert.equal(parsed.unchanged, 2, 'the indexed files are unchanged on the second run');
    assert.equal(parsed.indexed, 2);
  });

  test('a failed path is counted as failed, not indexed, and the run exits 1', async () => {
    const docs = join(cli.home, 'mixed');
    await mkdir(docs);
    await writeFile(join(docs, 'a.md'), '# A\n\nAlpha.\n');
    await writeFile(join(docs, 'b.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const result = await spawnCli(['index', docs, join(cli.home, 'missing.md')], { TOOLBUS_HOME: cli.home });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /Indexed 1 file\(s\): 1 added, 0 updated, 0 unchanged; 1 skipped, 1 failed;/);
    assert.match(result.stderr, /Failed 1 file\(s\):\n {2}failed .*missing\.md: not found/);
  });
});
