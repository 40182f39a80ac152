import { randomUUID } from 'node:crypto';
import type { SkillBundle, SkillRecord } from '@toolbus/skills';
import { omitUndefined } from '@toolbus/spec';
import { notFoundError, ServerError } from '../http/server-error.ts';
import type { SkillAdmin } from './skill-admin.ts';

/** A skill upload waiting for an admin's decision: its validation problems and content-scan findings. */
export interface SkillUploadReview {
  readonly uploadId: string;
  readonly name: string | null;
  readonly problems: readonly { readonly code: string; readonly message: string; readonly entry?: string }[];
  readonly findings: readonly unknown[];
  /** True when it passed validation (it can be accepted; findings need `acceptFindings`). */
  readonly acceptable: boolean;
}

const pendingUploadLifetimeMs = 30 * 60 * 1000;
const maxPendingUploads = 20;

/**
 * Reviewed skill uploads held in memory until an admin accepts one (upload → review → explicit accept). They
 * expire after 30 minutes, and at most 20 wait at once (the oldest goes first), so uploads cannot fill memory.
 */
export class PendingSkillUploads {
  readonly #pending = new Map<string, { bundle: SkillBundle | undefined; expires: number }>();

  /** Validates and scans an uploaded bundle; nothing is stored until {@link accept}. */
  async review(skills: SkillAdmin, bytes: Uint8Array): Promise<SkillUploadReview> {
    const inspection = await skills.inspect(bytes);
    this.#prune();
    // Bytes that cannot be read as a zip archive at all are no skill to review: refused now, and nothing of them is
    // kept (a review entry would otherwise sit in memory until it expired, with nothing anyone could accept).
    const unreadable = inspection.problems.find((problem) => problem.code === 'corrupt_zip');
    if (unreadable !== undefined) {
      throw new ServerError({
        code: 'invalid_request',
        field: 'body',
        message: `body: not a readable zip archive (${unreadable.message}); upload the skill folder as a .zip file.`,
      });
    }
    const uploadId = randomUUID();
    this.#pending.set(uploadId, { bundle: inspection.bundle, expires: Date.now() + pendingUploadLifetimeMs });
    return {
      uploadId,
      name: inspection.bundle?.name ?? null,
      problems: inspection.problems.map((problem) => ({
        code: problem.code,
        message: problem.message,
        ...omitUndefined({ entry: problem.entry || undefined }),
      })),
      findings: inspection.findings,
      acceptable: inspection.bundle !== undefined,
    };
  }

  /** How many reviewed uploads wait for an accept (expired ones are dropped first). */
  get size(): number {
    this.#prune();
    return this.#pending.size;
  }

  /** Stores a reviewed upload; findings refuse it unless `acceptFindings` is true. */
  async accept(
    skills: SkillAdmin,
    request: { readonly uploadId: string; readonly acceptFindings?: boolean; readonly replace?: boolean },
  ): Promise<SkillRecord> {
    const { uploadId, ...options } = request;
    const pending = this.#pending.get(uploadId);
    if (!pending || pending.expires < Date.now()) {
      throw notFoundError('path.uploadId', `no pending skill upload ${JSON.stringify(uploadId)}.`);
    }
    if (!pending.bundle) {
      throw new ServerError({
        code: 'conflict',
        field: 'path.uploadId',
        message: 'path.uploadId: this upload failed validation; fix the bundle and upload it again.',
      });
    }
    try {
      const record = await skills.add(pending.bundle, options);
      this.#pending.delete(uploadId);
      return record;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'findings_not_accepted' || code === 'skill_exists') {
        const field = code === 'findings_not_accepted' ? 'body.acceptFindings' : 'body.replace';
        throw new ServerError({ code: 'conflict', field, message: `${field}: ${(error as Error).message}` });
      }
      throw error;
    }
  }

  #prune(): void {
    const now = Date.now();
    for (const [id, pending] of this.#pending) if (pending.expires < now) this.#pending.delete(id);
    while (this.#pending.size >= maxPendingUploads) {
      const oldest = this.#pending.keys().next().value;
      if (oldest === undefined) break;
      this.#pending.delete(oldest);
    }
  }
}
