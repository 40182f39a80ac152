import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, type TestContext, test } from 'node:test';
import { minimalPdf } from '@toolbus/tools/testing';
import { startCliHome, useCliHome } from './__fixtures__/cli-home.ts';
import { killStartedClis, sendSignal, spawnCli, startCli } from './__fixtures__/spawn-cli.ts';

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

describe('toolbus index stopped by a signal', () => {
  after(killStartedClis);

  // 2,000 notes, a binary file named .txt (looked at, skipped) first and a .png (not looked at: its type alone).
  async function manyNotes(home: string): Promise<string> {
    const docs = join(home, 'notes');
    await mkdir(docs);
    await writeFile(join(docs, '0000-binary.txt'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13]));
    await writeFile(join(docs, 'photo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    for (let number = 1; number <= 2000; number += 1) {
      await writeFile(
        join(docs, `note-${String(number).padStart(4, '0')}.txt`),
        `Note ${number} of the pile.\n`,
      );
    }
    return docs;
  }

  /**
   * Takes the index file's write lock, as another `toolbus index` would: the run keeps its next document waiting
   * (each is one transaction), so however fast this machine is, the run cannot be over when the signal comes.
   */
  function holdIndexWriteLock(home: string): () => void {
    const database = new DatabaseSync(join(home, 'index.db'), { timeout: 60_000 });
    database.exec('BEGIN IMMEDIATE');
    return () => {
      database.exec('ROLLBACK');
      database.close();
    };
  }

  /** The one line a stopped run prints, its wording checked, and its counts. */
  function stopLine(stderr: string) {
    const match =
      /^toolbus index: stopped by (SIG\w+) after (\d+) of (\d+) files \((\d+) added, (\d+) updated, (\d+) unchanged, (\d+) skipped, (\d+) failed\); run it again to index the rest\.$/m.exec(
        stderr,
      );
    assert.ok(match, stderr);
    const [
      done = NaN,
      total = NaN,
      added = NaN,
      updated = NaN,
      unchanged = NaN,
      skipped = NaN,
      failed = NaN,
    ] = match.slice(2).map(Number);
    return { signal: match[1], done, total, added, updated, unchanged, skipped, failed };
  }

  /** `toolbus index` of 2,001 notes, started and past its first file (the index open, the run under way). */
  async function indexRunUnderWay(t: TestContext, prefix: string) {
    const cli = await startCliHome({ prefix });
    t.after(() => cli.close());
    const docs = await manyNotes(cli.home);
    const run = startCli(['index', docs], cli.env);
    await run.waitForStderrMatch(/^indexed \d+\/2001 files$/m);
    return { cli, docs, run };
  }

  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    test(`${signal} stops after the file in flight, says how far it got, exits ${code}; a re-run does the rest`, async (t) => {
      const { cli, docs, run } = await indexRunUnderWay(t, 'toolbus-index-stop-');
      const release = holdIndexWriteLock(cli.home);
      try {
        await sendSignal(run, signal);
      } finally {
        release();
      }
      assert.equal(await run.exited, code, run.output().stderr);
      const { stdout, stderr } = run.output();
      assert.equal(stdout, '', 'a stopped run prints no summary');
      const line = stopLine(stderr);
      assert.equal(line.signal, signal);
      assert.equal(line.total, 2001, 'the files looked at, not the .png passed over by its type');
      assert.ok(line.done > 0 && line.done < line.total, stderr);
      assert.equal(line.skipped, 1, 'the binary .txt, looked at first');
      assert.equal(line.updated + line.unchanged, 0, 'a fresh index');
      assert.equal(line.added + line.skipped + line.failed, line.done, 'the counts add up');
      assert.equal(stderr.match(/^toolbus index: /gm)?.length, 1, stderr);

      // Nothing was lost or half-written: the re-run adds exactly the rest, and finds the others unchanged.
      const rerun = await spawnCli(['index', docs], cli.env);
      assert.equal(rerun.code, 0, rerun.stderr);
      assert.match(
        rerun.stdout,
        new RegExp(
          `^Indexed 2000 file\\(s\\): ${2000 - line.added} added, 0 updated, ${line.added} unchanged; ` +
            '2 skipped, 0 failed; 0 removed from the index\\.\\n' +
            'The index now holds 2000 document\\(s\\) in 2000 chunk\\(s\\)',
        ),
      );
    });
  }

  test('a second Ctrl-C exits at once (130), without waiting for the file in flight', async (t) => {
    const { cli, docs, run } = await indexRunUnderWay(t, 'toolbus-index-twice-');
    // Held until the process is gone: the file in flight cannot finish, so only not waiting for it ends the run.
    const release = holdIndexWriteLock(cli.home);
    try {
      await sendSignal(run, 'SIGINT');
      await sendSignal(run, 'SIGINT');
      assert.equal(await run.exited, 130, run.output().stderr);
    } finally {
      release();
    }
    const { stderr } = run.output();
    assert.match(stderr, /^toolbus index: SIGINT again, exiting without waiting for running work$/m);
    assert.doesNotMatch(stderr, /stopped by/);
    const rerun = await spawnCli(['index', '--json', docs], cli.env);
    assert.equal(rerun.code, 0, rerun.stderr);
    const result = JSON.parse(rerun.stdout);
    assert.equal(result.added + result.unchanged, 2000, rerun.stdout);
    assert.deepEqual(result.index, { documents: 2000, chunks: 2000 });
  });
});
