import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { useCliHome } from './__fixtures__/cli-home.ts';
import { spawnCli } from './__fixtures__/spawn-cli.ts';

/** A one-page PDF; `text` drawn on it, or none (a scan has no text layer); `brokenXref` makes PDF.js warn. */
function pdf(options: { text?: string; brokenXref?: boolean }): Buffer {
  const content = options.text ? `BT /F1 12 Tf 20 100 Td (${options.text}) Tj ET` : '';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefAt = body.length;
  const entries = offsets.map(
    (offset) => `${String(options.brokenXref ? 999 : offset).padStart(10, '0')} 00000 n \n`,
  );
  body += `xref\n0 6\n0000000000 65535 f \n${entries.join('')}trailer\n<< /Size 6 /Root 1 0 R >>\n`;
  body += `startxref\n${options.brokenXref ? 99_999 : xrefAt}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

describe('toolbus index', () => {
  const cli = useCliHome({ prefix: 'toolbus-index-' });

  test('skips binary content and files without text, with counts and reasons; no PDF.js warnings', async () => {
    const docs = join(cli.home, 'docs');
    await mkdir(docs);
    await writeFile(join(docs, 'notes.md'), '# Notes\n\nThe warehouse opens at eight.\n');
    await writeFile(join(docs, 'report.pdf'), pdf({ text: 'Quarterly revenue grew', brokenXref: true }));
    await writeFile(join(docs, 'scan.pdf'), pdf({}));
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
