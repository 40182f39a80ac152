import type { BlobStore } from './blob-store.ts';
import { SkillBundleError } from './skill-bundle-error.ts';
import type { SkillRegistry } from './skill-registry.ts';

/** One side of {@link copyMissingSkills}: a registry and the store of its bundles. */
export interface SkillStorePair {
  readonly registry: SkillRegistry;
  readonly blobStore: BlobStore;
}

/** What {@link copyMissingSkills} did with each skill of the source, by name. */
export interface CopiedSkills {
  /** Copied: the bundle under its key, then the row, unchanged (id, hash, findings, time). */
  readonly copied: readonly string[];
  /** The target already had a skill of this name (its own stays). */
  readonly present: readonly string[];
  /** Not copied: the source's bundle could not be read (its error's code). */
  readonly failed: readonly { readonly name: string; readonly code: string }[];
}

/**
 * Copies every skill of `from` that `to` lacks, by name: its bundle first, under the same key, then its row, so the
 * target never lists a skill whose bundle it lacks. A name taken meanwhile (another process copying too) counts as
 * present. A bundle that cannot be read is reported and the rest go on; bundles are checked against their hash
 * where they are used (materializeSkills), not here.
 */
export async function copyMissingSkills(from: SkillStorePair, to: SkillStorePair): Promise<CopiedSkills> {
  const copied: string[] = [];
  const present: string[] = [];
  const failed: { name: string; code: string }[] = [];
  for (const record of await from.registry.list()) {
    if ((await to.registry.get(record.name)) !== undefined) {
      present.push(record.name);
      continue;
    }
    try {
      await to.blobStore.put(record.blobKey, await from.blobStore.get(record.blobKey));
    } catch (error) {
      if (!SkillBundleError.isInstance(error)) throw error;
      failed.push({ name: record.name, code: error.code });
      continue;
    }
    try {
      await to.registry.insert(record);
      copied.push(record.name);
    } catch (error) {
      if (!SkillBundleError.isInstance(error) || error.code !== 'skill_exists') throw error;
      present.push(record.name);
    }
  }
  return { copied, present, failed };
}
