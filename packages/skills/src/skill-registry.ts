import type { SkillFrontMatter } from './parse-skill-front-matter.ts';
import type { SkillContentFinding } from './scan-skill-content.ts';

/** The stored description of one ingested skill; its files live in the blob store under `blobKey`. */
export interface SkillRecord {
  readonly id: string;
  /** The skill's identity, from its front matter. Unique. */
  readonly name: string;
  readonly description: string;
  readonly frontMatter: SkillFrontMatter;
  /** Content hash of the normalised bundle (see `SkillBundle.sha256`). */
  readonly sha256: string;
  readonly blobKey: string;
  readonly totalBytes: number;
  readonly fileCount: number;
  readonly isBuiltIn: boolean;
  /** Content-scan findings recorded at ingestion. */
  readonly findings: readonly SkillContentFinding[];
  /** True when an admin accepted the findings explicitly (always false when there were none). */
  readonly findingsAccepted: boolean;
  /** ISO 8601 time of ingestion. */
  readonly createdAt: string;
}

/**
 * The narrow storage interface the skills package needs: rows describing ingested skills. One implementation on
 * storage's builder ships here for SQLite and PostgreSQL (sql-skill-registry.ts); a deployment can provide another
 * behind the same methods.
 */
export interface SkillRegistry {
  /** Adds a skill; rejects with `skill_exists` when the name is taken. */
  insert(record: SkillRecord): Promise<void>;
  /** Adds or replaces the skill with this name, in one step; resolves to the record it replaced. */
  replace(record: SkillRecord): Promise<SkillRecord | undefined>;
  get(name: string): Promise<SkillRecord | undefined>;
  /** Every skill, sorted by name. */
  list(): Promise<SkillRecord[]>;
  /** Removes a skill; resolves to the removed record. */
  delete(name: string): Promise<SkillRecord | undefined>;
}
