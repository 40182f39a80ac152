import type { BlobStore } from './blob-store.ts';
import type { SkillBundle } from './skill-bundle.ts';
import { SkillBundleError } from './skill-bundle-error.ts';
import type { SkillRecord } from './skill-registry.ts';
import { validateSkillBundle } from './validate-skill-bundle.ts';

/**
 * Reads a stored skill back from the blob store and validates it again (stored bytes are not trusted either:
 * storage can be tampered with), checking that its content hash still equals the registry's. Rejects with
 * `blob_not_found` or the bundle's problem, or `crc_mismatch` when the content changed.
 */
export async function loadStoredSkillBundle(options: {
  readonly record: SkillRecord;
  readonly blobStore: BlobStore;
}): Promise<SkillBundle> {
  const { record } = options;
  const bundle = await validateSkillBundle(await options.blobStore.get(record.blobKey), {
    // No administrator reservations: a skill stored before its name was reserved still loads.
    isBuiltIn: record.isBuiltIn,
  });
  if (bundle.sha256 !== record.sha256 || bundle.name !== record.name) {
    throw new SkillBundleError({
      code: 'crc_mismatch',
      message: `The stored bundle of "${record.name}" no longer matches what was ingested.`,
    });
  }
  return bundle;
}
