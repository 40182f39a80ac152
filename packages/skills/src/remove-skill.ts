import type { BlobStore } from './blob-store.ts';
import { SkillBundleError } from './skill-bundle-error.ts';
import type { SkillRecord, SkillRegistry } from './skill-registry.ts';

/** Removes a skill's row, then its blob. Rejects with `skill_not_found` when there is no such skill. */
export async function removeSkill(options: {
  readonly name: string;
  readonly registry: SkillRegistry;
  readonly blobStore: BlobStore;
}): Promise<SkillRecord> {
  const removed = await options.registry.delete(options.name);
  if (removed === undefined) {
    throw new SkillBundleError({
      code: 'skill_not_found',
      message: `There is no skill named "${options.name}".`,
    });
  }
  await options.blobStore.delete(removed.blobKey);
  return removed;
}
