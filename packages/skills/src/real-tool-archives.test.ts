import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { readSkillBundleFile } from './read-skill-bundle-file.ts';
import { SkillBundleError } from './skill-bundle-error.ts';
import { validateSkillBundle } from './validate-skill-bundle.ts';

const fixture = (name: string) => readFile(new URL(`./__fixtures__/real-tools/${name}`, import.meta.url));

describe('archives made by real zip tools', () => {
  for (const name of ['info-zip.zip', 'info-zip-zip64.zip', 'info-zip-root.zip', 'python-stream.zip']) {
    it(`accepts ${name} with the same content`, async () => {
      const bundle = await validateSkillBundle(await fixture(name));
      assert.equal(bundle.name, 'weather-kit');
      assert.deepEqual(
        bundle.files.map((file) => [file.path, file.size]),
        [
          ['SKILL.md', 81],
          ['assets/noise.bin', 3000],
          ['scripts/plot.py', 14],
        ],
      );
      assert.equal((await readSkillBundleFile(bundle, 'scripts/plot.py')).toString(), 'print("plot")\n');
    });
  }

  it('gives every one of them the same content hash', async () => {
    const hashes = new Set<string>();
    for (const name of ['info-zip.zip', 'info-zip-zip64.zip', 'info-zip-root.zip', 'python-stream.zip']) {
      hashes.add((await validateSkillBundle(await fixture(name))).sha256);
    }
    assert.equal(hashes.size, 1);
  });

  /** Sets the zip64 uncompressed size of assets/noise.bin in its local header, its central record, or both. */
  async function patchZip64Size(where: 'local' | 'central' | 'both'): Promise<Buffer> {
    const archive = Buffer.from(await fixture('info-zip-zip64.zip'));
    const name = Buffer.from('weather-kit/assets/noise.bin');
    for (let at = archive.indexOf(name); at !== -1; at = archive.indexOf(name, at + 1)) {
      const isLocal = archive.readUInt32LE(at - 30) === 0x04034b50;
      if (where !== 'both' && (where === 'local') !== isLocal) continue;
      let extra = at + name.length;
      while (archive.readUInt16LE(extra) !== 0x0001) extra += 4 + archive.readUInt16LE(extra + 2);
      assert.equal(archive.readBigUInt64LE(extra + 4), 3000n);
      archive.writeBigUInt64LE(2n ** 40n, extra + 4);
    }
    return archive;
  }

  it('reads zip64 sizes and refuses one that declares a terabyte', async () => {
    await assert.rejects(
      validateSkillBundle(await patchZip64Size('both')),
      (error: unknown) => SkillBundleError.isInstance(error) && error.code === 'entry_too_large',
    );
  });

  it('refuses zip64 sizes that differ between the local header and the central record', async () => {
    for (const where of ['local', 'central'] as const) {
      await assert.rejects(
        validateSkillBundle(await patchZip64Size(where)),
        (error: unknown) => SkillBundleError.isInstance(error) && error.code === 'header_mismatch',
        where,
      );
    }
  });

  it('refuses the symlink stored by zip --symlinks', async () => {
    await assert.rejects(validateSkillBundle(await fixture('info-zip-symlink.zip')), (error: unknown) => {
      assert.ok(SkillBundleError.isInstance(error));
      assert.equal(error.code, 'symlink_entry');
      assert.equal(error.entry, 'sym-kit/passwd');
      return true;
    });
  });
});
