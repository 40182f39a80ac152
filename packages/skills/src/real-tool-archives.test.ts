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

  it('refuses the symlink stored by zip --symlinks', async () => {
    await assert.rejects(validateSkillBundle(await fixture('info-zip-symlink.zip')), (error: unknown) => {
      assert.ok(SkillBundleError.isInstance(error));
      assert.equal(error.code, 'symlink_entry');
      assert.equal(error.entry, 'sym-kit/passwd');
      return true;
    });
  });
});
