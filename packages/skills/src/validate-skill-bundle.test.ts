import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { type ForgedEntry, forgeZip, skillMarkdown } from './__fixtures__/forge-zip.ts';
import { inspectSkillBundle } from './inspect-skill-bundle.ts';
import { readSkillBundleFile } from './read-skill-bundle-file.ts';
import { SkillBundleError, type SkillBundleErrorCode } from './skill-bundle-error.ts';
import { validateSkillBundle } from './validate-skill-bundle.ts';

const skill: ForgedEntry = { name: 'SKILL.md', data: skillMarkdown() };

async function refusal(archive: Buffer, options: Parameters<typeof validateSkillBundle>[1] = {}) {
  try {
    await validateSkillBundle(archive, options);
  } catch (error) {
    assert.ok(SkillBundleError.isInstance(error), `expected a SkillBundleError, got ${String(error)}`);
    return error;
  }
  assert.fail('the bundle was accepted');
}

async function assertRefused(
  entries: readonly ForgedEntry[],
  code: SkillBundleErrorCode,
  options: Parameters<typeof validateSkillBundle>[1] = {},
) {
  const error = await refusal(forgeZip(entries), options);
  assert.equal(error.code, code, error.message);
  return error;
}

describe('validateSkillBundle compares names after Unicode compatibility folding', () => {
  it('refuses two names equal after NFKC folding as duplicates', async () => {
    await assertRefused(
      [skill, { name: 'run.py', data: '1' }, { name: '\uff52un.py', data: '2' }],
      'duplicate_entry',
    );
  });
  it('refuses a full-width .template suffix in a custom bundle', async () => {
    await assertRefused([skill, { name: 'x.\uff54emplate', data: '{{ a }}' }], 'template_in_custom_bundle');
  });
});

describe('validateSkillBundle refuses hostile entry names', () => {
  const cases: [string, string | Buffer, SkillBundleErrorCode][] = [
    ['a parent-directory escape', '../evil.sh', 'path_traversal'],
    ['an escape after normalisation', 'scripts/../../evil.sh', 'path_traversal'],
    ['an absolute path', '/etc/cron.d/evil', 'absolute_path'],
    ['a drive letter with a backslash', 'C:\\Windows\\evil.dll', 'absolute_path'],
    ['a drive letter with a slash', 'C:/evil.dll', 'absolute_path'],
    ['a UNC path', '\\\\server\\share\\evil', 'absolute_path'],
    ['a backslash separator', 'scripts\\evil.py', 'backslash_in_path'],
    ['a NUL byte', 'scripts/evil.py\u0000.txt', 'control_character_in_name'],
    ['a newline', 'scripts/ev\nil.py', 'control_character_in_name'],
    ['a C1 control', 'scripts/ev\u0085il.py', 'control_character_in_name'],
    ['an empty segment', 'scripts//evil.py', 'invalid_path'],
    ['a dot segment', './scripts/evil.py', 'invalid_path'],
    ['bytes that are not UTF-8', Buffer.from([0x73, 0xff, 0xfe, 0x2e, 0x70, 0x79]), 'invalid_name_encoding'],
    ['an overlong path', `${'a/'.repeat(600)}x`, 'path_too_long'],
    ['a full-width ".." (NFKC folds it to "..")', '\uff0e\uff0e/evil.sh', 'path_traversal'],
    ['a full-width ".." deeper down', 'scripts/\uff0e\uff0e/\uff0e\uff0e/evil.sh', 'path_traversal'],
    ['a two-dot leader (NFKC "..")', '\u2025/evil.sh', 'path_traversal'],
    ['a one-dot leader segment (NFKC ".")', 'scripts/\u2024/evil.sh', 'invalid_path'],
    ['a full-width solidus (NFKC "/")', 'scripts\uff0fevil.sh', 'invalid_path'],
    ['a full-width solidus at the start', '\uff0fetc/passwd', 'absolute_path'],
    ['a full-width reverse solidus', 'scripts\uff3cevil.sh', 'backslash_in_path'],
  ];
  for (const [title, name, code] of cases) {
    it(`refuses ${title} with ${code} and names the entry`, async () => {
      const error = await assertRefused([skill, { name, data: 'x' }], code);
      if (typeof name === 'string' && !name.includes('\u0000') && code !== 'path_too_long') {
        assert.equal(error.entry, name);
      }
    });
  }
});

describe('validateSkillBundle refuses hostile entry types and duplicates', () => {
  it('refuses a symlink from the Unix mode bits', async () => {
    const error = await assertRefused(
      [skill, { name: 'link', data: '/etc/passwd', unixMode: 0o120777 }],
      'symlink_entry',
    );
    assert.match(error.message, /"link"/);
  });
  it('refuses a FIFO and a device', async () => {
    await assertRefused([skill, { name: 'pipe', data: '', unixMode: 0o010644 }], 'special_file_entry');
    await assertRefused([skill, { name: 'dev', data: '', unixMode: 0o020644 }], 'special_file_entry');
  });
  it('refuses a file whose attributes say it is a folder', async () => {
    await assertRefused([skill, { name: 'notes', data: 'x', unixMode: 0o040755 }], 'special_file_entry');
  });
  it('refuses exact duplicates', async () => {
    await assertRefused(
      [skill, { name: 'a.txt', data: '1' }, { name: 'a.txt', data: '2' }],
      'duplicate_entry',
    );
  });
  it('refuses duplicates that differ only by case', async () => {
    await assertRefused(
      [skill, { name: 'Notes.md', data: '1' }, { name: 'notes.md', data: '2' }],
      'duplicate_entry',
    );
  });
  it('refuses duplicates that differ only by Unicode normalisation (NFC vs NFD)', async () => {
    await assertRefused(
      [skill, { name: 'caf\u00e9.md', data: '1' }, { name: 'cafe\u0301.md', data: '2' }],
      'duplicate_entry',
    );
  });
  it('refuses a duplicate SKILL.md under another case', async () => {
    await assertRefused([skill, { name: 'skill.md', data: skillMarkdown('other') }], 'duplicate_entry');
  });
  it('refuses a file that is also used as a folder', async () => {
    await assertRefused(
      [skill, { name: 'data', data: '1' }, { name: 'data/x.csv', data: '2' }],
      'file_directory_conflict',
    );
  });
});

describe('validateSkillBundle refuses forged archives', () => {
  it('refuses a local header whose name differs from the central record', async () => {
    const error = await assertRefused(
      [skill, { name: 'safe.txt', data: 'x', local: { name: '../evil.txt' } }],
      'header_mismatch',
    );
    assert.match(error.message, /safe\.txt/);
  });
  // One forged entry beside a valid SKILL.md, and the code it is refused with.
  const unicodePathName = Buffer.from('../../evil.sh');
  const unicodePathExtra = Buffer.concat([
    Buffer.from([0x75, 0x70, unicodePathName.length + 5, 0, 1, 0, 0, 0, 0]),
    unicodePathName,
  ]);
  const forged: readonly (readonly [title: string, entry: ForgedEntry, code: SkillBundleErrorCode])[] = [
    [
      'a local header whose CRC differs',
      { name: 'a.txt', data: 'hello', local: { crc32: 1 } },
      'header_mismatch',
    ],
    [
      'a local header whose size differs',
      { name: 'a.txt', data: 'hello', local: { uncompressedSize: 3 } },
      'header_mismatch',
    ],
    [
      'a local header whose method differs',
      { name: 'a.txt', data: 'hello', method: 0, local: { method: 8 } },
      'header_mismatch',
    ],
    [
      'a local header whose flags differ',
      { name: 'a.txt', data: 'hello', local: { flags: 0 } },
      'header_mismatch',
    ],
    [
      'a wrong CRC declared consistently in both headers',
      { name: 'a.txt', data: 'hello', both: { crc32: 0xdeadbeef } },
      'crc_mismatch',
    ],
    [
      'data that expands beyond its declared size',
      { name: 'a.txt', data: 'hello world', both: { uncompressedSize: 4 } },
      'size_mismatch',
    ],
    [
      'data that expands to less than its declared size',
      { name: 'a.txt', data: 'hello world', both: { uncompressedSize: 40 } },
      'size_mismatch',
    ],
    [
      'a stored entry whose compressed and uncompressed sizes disagree',
      { name: 'a.txt', data: 'hello world', method: 0, both: { uncompressedSize: 5 } },
      'size_mismatch',
    ],
    [
      'compressed data with hidden bytes after the deflate stream',
      {
        name: 'a.txt',
        data: 'hello',
        rawData: Buffer.concat([deflateRawSync(Buffer.from('hello')), Buffer.from('hidden payload')]),
      },
      'corrupt_entry',
    ],
    [
      'corrupt deflate data',
      { name: 'a.txt', data: 'hello', rawData: Buffer.from([0xff, 0xff, 0xff, 0x00]) },
      'corrupt_entry',
    ],
    ['a traditionally encrypted entry', { name: 'a.txt', data: 'x', flags: 0x0801 }, 'encrypted_entry'],
    ['a strongly encrypted entry', { name: 'a.txt', data: 'x', flags: 0x0841 }, 'encrypted_entry'],
    ['an AES-encrypted entry (method 99)', { name: 'a.txt', data: 'x', method: 99 }, 'encrypted_entry'],
    ['bzip2 compression (method 12)', { name: 'a.txt', data: 'x', method: 12 }, 'unsupported_compression'],
    ['LZMA compression (method 14)', { name: 'a.txt', data: 'x', method: 14 }, 'unsupported_compression'],
    [
      'a second name hidden in a Unicode path extra field of both headers',
      { name: 'fine.sh', data: 'x', both: { extra: unicodePathExtra } },
      'header_mismatch',
    ],
    [
      'a second name hidden in a Unicode path extra field of the local header',
      { name: 'fine.sh', data: 'x', local: { extra: unicodePathExtra } },
      'header_mismatch',
    ],
    [
      'malformed extra fields',
      { name: 'a.txt', data: 'x', central: { extra: Buffer.from([1, 2, 3]) } },
      'corrupt_zip',
    ],
    [
      'a data descriptor that disagrees with the central record',
      { name: 'a.txt', data: 'hello', dataDescriptor: true, descriptorCrc32: 7 },
      'header_mismatch',
    ],
  ];
  for (const [title, entry, code] of forged) {
    it(`refuses ${title} with ${code}`, async () => {
      await assertRefused([skill, entry], code);
    });
  }
  it('refuses an entry that overlaps an earlier, longer entry even when the one between does not', async () => {
    const archive = forgeZip([
      skill,
      { name: 'a.txt', data: 'a' },
      { name: 'b.txt', data: 'b' },
      { name: 'c.txt', data: 'c' },
    ]);
    // Stretch a.txt's compressed size so that it swallows b.txt and c.txt (central record only: a lie).
    const directory = archive.readUInt32LE(archive.length - 6);
    let position = directory;
    for (let index = 0; index < 1; index += 1) position += 46 + archive.readUInt16LE(position + 28);
    const aLocal = archive.readUInt32LE(position + 42);
    const span = directory - aLocal - 30 - 5;
    archive.writeUInt32LE(span, position + 20);
    archive.writeUInt32LE(span, aLocal + 18);
    const error = await refusal(archive);
    assert.equal(error.code, 'overlapping_entries');
    const all = await inspectSkillBundle(archive);
    assert.deepEqual(
      all.problems
        .filter((problem) => problem.code === 'overlapping_entries')
        .map((problem) => problem.entry),
      ['b.txt', 'c.txt'],
    );
  });

  it('refuses bytes that are not a zip, and a truncated zip', async () => {
    assert.equal((await refusal(Buffer.from('not a zip at all'))).code, 'corrupt_zip');
    const whole = forgeZip([skill, { name: 'a.txt', data: 'hello' }]);
    assert.equal((await refusal(whole.subarray(0, whole.length - 30))).code, 'corrupt_zip');
  });
  it('refuses a central directory that does not end at the end record', async () => {
    const whole = forgeZip([skill], { comment: 'x' });
    const shifted = Buffer.from(whole);
    const end = shifted.length - 23;
    shifted.writeUInt32LE(shifted.readUInt32LE(end + 16) - 1, end + 16);
    assert.equal((await refusal(shifted)).code, 'corrupt_zip');
  });
});

describe('validateSkillBundle applies the skill rules', () => {
  it('refuses .template files in custom bundles but accepts them in built-ins', async () => {
    const entries = [skill, { name: 'prompt.md.template', data: 'Hi {{ deployment_name }}' }];
    await assertRefused(entries, 'template_in_custom_bundle');
    const bundle = await validateSkillBundle(forgeZip(entries), { isBuiltIn: true });
    assert.ok(bundle.files.some((file) => file.path === 'prompt.md.template'));
  });
  it('refuses a bundle without SKILL.md, or with SKILL.md too deep', async () => {
    await assertRefused([{ name: 'README.md', data: 'x' }], 'missing_skill_md');
    await assertRefused([{ name: 'a/b/SKILL.md', data: skillMarkdown() }], 'missing_skill_md');
  });
  it('refuses files beside the wrapping folder that holds SKILL.md', async () => {
    await assertRefused(
      [
        { name: 'wrap/SKILL.md', data: skillMarkdown() },
        { name: 'stray.txt', data: 'x' },
      ],
      'files_outside_wrapper',
    );
  });
  it('refuses malformed front matter', async () => {
    const cases = [
      'no front matter at all',
      '---\nname: a\ndescription: b\n',
      '---\nname: [unclosed\n---\n',
      '---\nname: a\ndescription: !!python/object/apply:os.system ["id"]\n---\n',
      '---\nname: a\nname: b\ndescription: c\n---\n',
      '---\n- a\n- b\n---\n',
      '---\nbase: &x hello\nname: *x\ndescription: c\n---\n',
    ];
    for (const text of cases) await assertRefused([{ name: 'SKILL.md', data: text }], 'invalid_front_matter');
  });
  it('refuses bad names', async () => {
    for (const name of ['Bad_Name', 'a--b', '-a', 'a-', 'x'.repeat(65), '12', 'true']) {
      await assertRefused([{ name: 'SKILL.md', data: skillMarkdown(name) }], 'invalid_skill_name');
    }
    await assertRefused([{ name: 'SKILL.md', data: '---\ndescription: d\n---\n' }], 'invalid_skill_name');
  });
  it('refuses a blank or overlong description', async () => {
    await assertRefused([{ name: 'SKILL.md', data: skillMarkdown('a', '"   "') }], 'invalid_description');
    await assertRefused(
      [{ name: 'SKILL.md', data: skillMarkdown('a', 'd'.repeat(1025)) }],
      'invalid_description',
    );
  });
  it('refuses reserved names, the built-in ones by default', async () => {
    await assertRefused([{ name: 'SKILL.md', data: skillMarkdown('pdf-reports') }], 'reserved_skill_name');
    await assertRefused([{ name: 'SKILL.md', data: skillMarkdown('mine') }], 'reserved_skill_name', {
      reservedNames: ['mine'],
    });
  });
  it("reserves the built-in names and the administrator's names together, compared folded", async () => {
    const adminReserved = { reservedNames: ['Payroll', 'ｉｎｔｅｒｎａｌ'] };
    const builtIn = await assertRefused(
      [{ name: 'SKILL.md', data: skillMarkdown('pdf-reports') }],
      'reserved_skill_name',
      adminReserved,
    );
    assert.match(builtIn.message, /built-in/);
    const admin = await assertRefused(
      [{ name: 'SKILL.md', data: skillMarkdown('payroll') }],
      'reserved_skill_name',
      adminReserved,
    );
    assert.match(admin.message, /administrator/);
    await assertRefused(
      [{ name: 'SKILL.md', data: skillMarkdown('internal') }],
      'reserved_skill_name',
      adminReserved,
    );
    assert.equal(
      (
        await validateSkillBundle(
          forgeZip([{ name: 'SKILL.md', data: skillMarkdown('free') }]),
          adminReserved,
        )
      ).name,
      'free',
    );
    // A built-in bundle keeps its own name.
    const seeded = forgeZip([{ name: 'SKILL.md', data: skillMarkdown('pdf-reports') }]);
    assert.equal(
      (await validateSkillBundle(seeded, { isBuiltIn: true, ...adminReserved })).name,
      'pdf-reports',
    );
  });
  it('refuses a wrapping folder whose name differs from the front matter name', async () => {
    const error = await assertRefused(
      [
        { name: 'other-name/SKILL.md', data: skillMarkdown('demo-skill') },
        { name: 'other-name/run.py', data: 'print(1)' },
      ],
      'wrapper_name_mismatch',
    );
    assert.match(error.message, /"demo-skill".*"other-name"/);
    await assertRefused(
      [{ name: 'Demo-Skill/SKILL.md', data: skillMarkdown('demo-skill') }],
      'wrapper_name_mismatch',
    );
    const matching = await validateSkillBundle(
      forgeZip([
        { name: 'demo-skill/SKILL.md', data: skillMarkdown('demo-skill') },
        { name: 'demo-skill/run.py', data: 'print(1)' },
      ]),
    );
    assert.deepEqual(
      matching.files.map((file) => file.path),
      ['SKILL.md', 'run.py'],
    );
  });
  it('refuses more entries than allowed, and an archive over its byte limit (also as a stream)', async () => {
    const entries = [skill, { name: 'a', data: '1' }, { name: 'b', data: '2' }, { name: 'c', data: '3' }];
    await assertRefused(entries, 'too_many_entries', { maxEntries: 3 });
    const archive = forgeZip(entries);
    assert.equal((await refusal(archive, { maxArchiveBytes: 100 })).code, 'archive_too_large');
    await assert.rejects(
      validateSkillBundle(Readable.from([archive.subarray(0, 80), archive.subarray(80)]), {
        maxArchiveBytes: 100,
      }),
      (error: unknown) => SkillBundleError.isInstance(error) && error.code === 'archive_too_large',
    );
  });
  it('refuses files and totals over the size limits', async () => {
    await assertRefused([skill, { name: 'big.bin', data: Buffer.alloc(2000) }], 'entry_too_large', {
      perFileMaxBytes: 1000,
    });
    await assertRefused(
      [skill, { name: 'a.bin', data: Buffer.alloc(900) }, { name: 'b.bin', data: Buffer.alloc(900) }],
      'bundle_too_large',
      { perFileMaxBytes: 1000, totalMaxBytes: 1500 },
    );
  });
});

describe('validateSkillBundle accepts benign bundles', () => {
  const binary = createHash('sha512').update('seed').digest();
  const asset = Buffer.concat(Array.from({ length: 2000 }, () => binary));
  const inner = forgeZip([{ name: 'inner.txt', data: 'a zip inside the bundle' }]);
  const files = new Map<string, Buffer>([
    ['SKILL.md', Buffer.from(skillMarkdown('report-kit', 'Builds reports from CSV files.'))],
    ['scripts/build.py', Buffer.from('import csv\nprint("ok")\n')],
    ['assets/images/logo.png', asset],
    ['assets/templates/archive.zip', inner],
    ['references/deep/nested/notes.md', Buffer.from('# Notes\n')],
  ]);

  it('flattens a wrapping folder, drops OS clutter, keeps binaries and nested zips byte for byte', async () => {
    const entries: ForgedEntry[] = [
      { name: 'report-kit/', data: '', unixMode: 0o040755 },
      ...[...files].map(
        ([path, data], index): ForgedEntry => ({
          name: `report-kit/${path}`,
          data,
          method: index % 2 === 0 ? 8 : 0,
          dataDescriptor: index === 1,
          unixMode: 0o100644,
        }),
      ),
      { name: '__MACOSX/report-kit/._SKILL.md', data: 'resource fork' },
      { name: 'report-kit/.DS_Store', data: Buffer.alloc(10) },
      { name: 'report-kit/assets/Thumbs.db', data: Buffer.alloc(10) },
    ];
    const bundle = await validateSkillBundle(forgeZip(entries));
    assert.equal(bundle.name, 'report-kit');
    assert.equal(bundle.description, 'Builds reports from CSV files.');
    assert.deepEqual(
      bundle.files.map((file) => file.path),
      [...files.keys()].sort(),
    );
    for (const file of bundle.files) {
      const expected = files.get(file.path)!;
      assert.equal(file.size, expected.length);
      assert.equal(file.sha256, createHash('sha256').update(expected).digest('hex'));
      assert.deepEqual(await readSkillBundleFile(bundle, file.path), expected);
    }
    assert.equal(
      bundle.totalBytes,
      [...files.values()].reduce((sum, data) => sum + data.length, 0),
    );
    assert.deepEqual(bundle.findings, []);
  });

  it('gives the same content hash whatever the entry order, methods, wrapper and input form', async () => {
    const forward = forgeZip([...files].map(([name, data]) => ({ name, data, method: 0 })));
    const backward = forgeZip(
      [...files].reverse().map(([name, data]) => ({ name: `report-kit/${name}`, data, method: 8 })),
    );
    const first = await validateSkillBundle(forward);
    const second = await validateSkillBundle(
      Readable.from([backward.subarray(0, 1000), backward.subarray(1000)]),
    );
    assert.equal(first.sha256, second.sha256);
    const changed = forgeZip(
      [...files].map(([name, data]) => ({ name, data: name === 'scripts/build.py' ? 'changed' : data })),
    );
    assert.notEqual((await validateSkillBundle(changed)).sha256, first.sha256);
  });

  it('reads a web ReadableStream as well', async () => {
    const archive = forgeZip([...files].map(([name, data]) => ({ name, data })));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < archive.length; offset += 4096)
          controller.enqueue(archive.subarray(offset, offset + 4096));
        controller.close();
      },
    });
    assert.equal((await validateSkillBundle(stream)).name, 'report-kit');
  });

  it('accepts CRLF front matter with a byte-order mark and keeps extra keys', async () => {
    const text =
      '\ufeff---\r\nname: crlf-skill\r\ndescription: Works on Windows.\r\nlicense: MIT\r\nversion: 2\r\n---\r\nBody\r\n';
    const bundle = await validateSkillBundle(forgeZip([{ name: 'SKILL.md', data: text }]));
    assert.equal(bundle.name, 'crlf-skill');
    assert.equal(bundle.frontMatter.license, 'MIT');
    assert.deepEqual(bundle.frontMatter.extra, { version: 2 });
    assert.equal(bundle.instructions, 'Body\r\n');
  });

  it('accepts directory entries written with zero attributes, as Java and some tools do', async () => {
    const bundle = await validateSkillBundle(
      forgeZip([{ name: 'docs/', data: '' }, skill, { name: 'docs/a.md', data: 'a' }]),
    );
    assert.deepEqual(
      bundle.files.map((file) => file.path),
      ['SKILL.md', 'docs/a.md'],
    );
  });
});
