import { createHash } from 'node:crypto';
import { bundleSources } from './bundle-sources.ts';
import { EntryProblem } from './problem-collector.ts';
import type { SkillBundle } from './skill-bundle.ts';
import { SkillBundleError } from './skill-bundle-error.ts';
import { readEntryData } from './zip/read-entry-data.ts';

/**
 * Reads one file of a validated bundle again from its verified archive, checking its CRC and its SHA-256 against
 * what validation recorded. Rejects with `skill_not_found` for a path the bundle does not hold.
 */
export async function readSkillBundleFile(bundle: SkillBundle, path: string): Promise<Buffer> {
  const source = bundleSources.get(bundle);
  const entry = source?.entries.get(path);
  const file = bundle.files.find((candidate) => candidate.path === path);
  if (source === undefined || entry === undefined || file === undefined) {
    throw new SkillBundleError({
      code: 'skill_not_found',
      message: `The bundle "${bundle.name}" has no file ${JSON.stringify(path)} (or was not produced by validateSkillBundle).`,
    });
  }
  const chunks: Buffer[] = [];
  const hash = createHash('sha256');
  try {
    for await (const chunk of readEntryData(source.archive, entry)) {
      hash.update(chunk);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof EntryProblem) throw new SkillBundleError(error.problem);
    throw error;
  }
  if (hash.digest('hex') !== file.sha256) {
    throw new SkillBundleError({
      code: 'crc_mismatch',
      message: `${path} changed since it was validated.`,
      entry: path,
    });
  }
  return Buffer.concat(chunks, file.size);
}
