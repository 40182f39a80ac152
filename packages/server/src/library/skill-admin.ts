import {
  type BlobStore,
  ingestSkillBundle,
  inspectSkillBundle,
  removeSkill,
  type SeededSkill,
  type SkillBundle,
  type SkillBundleInput,
  type SkillBundleInspection,
  type SkillRecord,
  type SkillRegistry,
  seedBuiltInSkills,
  type ValidateSkillBundleOptions,
} from '@toolbus/skills';
import { omitUndefined } from '@toolbus/spec';
import { notFoundError, ServerError } from '../http/server-error.ts';

/** What the skill operations need: the stores, and the deployment's validation rules. */
export interface SkillAdminOptions {
  /** The stores; without them only {@link SkillAdmin.inspect} works (validating a bundle stores nothing). */
  readonly registry?: SkillRegistry;
  readonly blobStore?: BlobStore;
  /** Size limits and the administrator's reserved names (the built-in skills' names are always reserved). */
  readonly validation?: ValidateSkillBundleOptions;
}

/**
 * The skill operations, one implementation for every front end: `toolbus skills` (validate, add, list, remove,
 * seed) and the server's admin routes (upload → review → accept) call these. Validation failures throw the skills
 * package's `SkillBundleError` (each front end words them); removing a built-in skill is refused here.
 */
export class SkillAdmin {
  readonly #options: SkillAdminOptions;

  constructor(options: SkillAdminOptions) {
    this.#options = options;
  }

  /** Every problem and finding of a bundle, with the bundle when it passed; nothing is stored. */
  async inspect(input: SkillBundleInput): Promise<SkillBundleInspection> {
    return inspectSkillBundle(input, this.#options.validation ?? {});
  }

  /**
   * Stores a bundle (raw, or one {@link SkillAdmin.inspect} returned); findings refuse it unless `acceptFindings`,
   * an existing name unless `replace`.
   */
  async add(
    bundle: SkillBundleInput | SkillBundle,
    options: { readonly acceptFindings?: boolean; readonly replace?: boolean } = {},
  ): Promise<SkillRecord> {
    return ingestSkillBundle({
      bundle,
      ...this.#stores(),
      ...omitUndefined({
        validation: this.#options.validation,
        acceptFindings: options.acceptFindings,
        replace: options.replace,
      }),
    });
  }

  async list(): Promise<readonly SkillRecord[]> {
    return this.#stores().registry.list();
  }

  /** Deletes a custom skill; `not_found` for an unknown name, `conflict` for a built-in one (seeding manages those). */
  async remove(name: string): Promise<void> {
    const stores = this.#stores();
    const existing = await stores.registry.get(name);
    if (!existing) {
      throw notFoundError('path.name', `no skill ${JSON.stringify(name)}.`);
    }
    if (existing.isBuiltIn) {
      throw new ServerError({
        code: 'conflict',
        field: 'path.name',
        message: `path.name: "${name}" is a built-in skill; it is managed by seeding ("toolbus skills seed").`,
      });
    }
    await removeSkill({ name, ...stores });
  }

  /** Stores (or refreshes) the built-in skills. */
  async seed(): Promise<readonly SeededSkill[]> {
    return seedBuiltInSkills(this.#stores());
  }

  #stores(): { registry: SkillRegistry; blobStore: BlobStore } {
    const { registry, blobStore } = this.#options;
    if (!registry || !blobStore) {
      throw new ServerError({ code: 'not_available', message: 'No skill store is configured.' });
    }
    return { registry, blobStore };
  }
}
