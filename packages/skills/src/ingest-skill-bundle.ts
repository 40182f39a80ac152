import { randomUUID } from 'node:crypto';
import type { BlobStore } from './blob-store.ts';
import type { SkillBundle, SkillBundleInput, ValidateSkillBundleOptions } from './skill-bundle.ts';
import { SkillBundleError } from './skill-bundle-error.ts';
import type { SkillRecord, SkillRegistry } from './skill-registry.ts';
import { validateSkillBundle } from './validate-skill-bundle.ts';
import { writeNormalisedSkillBundle } from './write-normalised-skill-bundle.ts';

/** Options for {@link ingestSkillBundle}. */
export interface IngestSkillBundleOptions {
  /** The uploaded zip, as bytes or a stream; or a bundle already returned by `validateSkillBundle`. */
  readonly bundle: SkillBundleInput | SkillBundle;
  readonly blobStore: BlobStore;
  readonly registry: SkillRegistry;
  /**
   * Content-scan findings refuse the ingestion unless an admin accepts them explicitly with `true`; the record
   * then keeps the findings and `findingsAccepted: true`.
   */
  readonly acceptFindings?: boolean;
  /** Replace an existing skill of the same name (its old blob is removed afterwards). Default false. */
  readonly replace?: boolean;
  /** Limits and policy passed to `validateSkillBundle`. */
  readonly validation?: ValidateSkillBundleOptions;
  /** Clock for `createdAt`; tests pin it. */
  readonly now?: () => Date;
}

/**
 * Validates a bundle, stores its normalised form in the blob store and writes its registry row. Rejects with a
 * `SkillBundleError`: the bundle's own problem, `findings_not_accepted`, or `skill_exists`. On any failure after
 * the blob was stored, the blob is removed, so nothing half-ingested remains.
 */
export async function ingestSkillBundle(options: IngestSkillBundleOptions): Promise<SkillRecord> {
  const bundle = isSkillBundle(options.bundle)
    ? options.bundle
    : await validateSkillBundle(options.bundle, options.validation);
  if (bundle.findings.length > 0 && options.acceptFindings !== true) {
    const kinds = [...new Set(bundle.findings.map((finding) => finding.kind))].join(', ');
    throw new SkillBundleError({
      code: 'findings_not_accepted',
      message: `The bundle "${bundle.name}" has ${bundle.findings.length} content finding(s) (${kinds}); an admin must review and accept them explicitly.`,
      findings: bundle.findings,
    });
  }
  if (options.replace !== true && (await options.registry.get(bundle.name)) !== undefined) {
    throw new SkillBundleError({
      code: 'skill_exists',
      message: `A skill named "${bundle.name}" already exists.`,
    });
  }
  // A fresh key per ingestion: a failed attempt can delete its own blob without touching a blob another row uses.
  const blobKey = `skills/${bundle.name}/${bundle.sha256}-${randomUUID()}.zip`;
  await options.blobStore.put(blobKey, writeNormalisedSkillBundle(bundle)).catch(async (error: unknown) => {
    await options.blobStore.delete(blobKey);
    throw error;
  });
  const record: SkillRecord = {
    id: randomUUID(),
    name: bundle.name,
    description: bundle.description,
    frontMatter: bundle.frontMatter,
    sha256: bundle.sha256,
    blobKey,
    totalBytes: bundle.totalBytes,
    fileCount: bundle.files.length,
    isBuiltIn: bundle.isBuiltIn,
    findings: bundle.findings,
    findingsAccepted: bundle.findings.length > 0,
    createdAt: (options.now?.() ?? new Date()).toISOString(),
  };
  let previous: SkillRecord | undefined;
  try {
    if (options.replace === true) previous = await options.registry.replace(record);
    else await options.registry.insert(record);
  } catch (error) {
    await options.blobStore.delete(blobKey);
    throw error;
  }
  if (previous !== undefined && previous.blobKey !== blobKey)
    await options.blobStore.delete(previous.blobKey);
  return record;
}

function isSkillBundle(value: IngestSkillBundleOptions['bundle']): value is SkillBundle {
  return (
    !(value instanceof Uint8Array) && typeof (value as SkillBundle).sha256 === 'string' && 'files' in value
  );
}
