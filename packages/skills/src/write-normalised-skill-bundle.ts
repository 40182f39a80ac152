import { readSkillBundleFile } from './read-skill-bundle-file.ts';
import type { SkillBundle } from './skill-bundle.ts';
import { writeZip } from './zip/write-zip.ts';

/**
 * The normalised form of a validated bundle, as stored: a deterministic zip of its files only (wrapper folder
 * removed, clutter and directory entries dropped, paths sorted, fixed timestamps, mode 0644). Every file is read
 * back from the verified upload (CRC and SHA-256 checked again) as it is written. Yields the zip in pieces.
 */
export function writeNormalisedSkillBundle(bundle: SkillBundle): AsyncGenerator<Buffer> {
  async function* files() {
    for (const file of bundle.files)
      yield { path: file.path, data: await readSkillBundleFile(bundle, file.path) };
  }
  return writeZip(files());
}
