import { ToolbusError, type ToolbusErrorOptions } from '@toolbus/spec';
import type { SkillContentFinding } from './scan-skill-content.ts';

/**
 * Every code a refused skill bundle (or a failed skills operation) can carry. Callers branch on these, never on
 * message text. Grouped by what they protect:
 * - archive structure: `corrupt_zip`, `archive_too_large`, `header_mismatch`, `overlapping_entries`,
 *   `crc_mismatch`, `size_mismatch`, `corrupt_entry`, `encrypted_entry`, `unsupported_compression`,
 *   `multi_disk_zip`;
 * - entry names: `path_traversal`, `absolute_path`, `backslash_in_path`, `control_character_in_name`,
 *   `invalid_path`, `path_too_long`, `invalid_name_encoding`, `duplicate_entry`, `file_directory_conflict`;
 * - entry types: `symlink_entry`, `special_file_entry`;
 * - limits: `entry_too_large`, `bundle_too_large`, `too_many_entries`;
 * - skill rules: `template_in_custom_bundle`, `missing_skill_md`, `files_outside_wrapper`, `invalid_front_matter`,
 *   `invalid_skill_name`, `reserved_skill_name`, `wrapper_name_mismatch`, `invalid_description`;
 * - ingestion and delivery: `findings_not_accepted`, `skill_exists`, `skill_not_found`, `blob_not_found`,
 *   `invalid_template`, `unsafe_target`, `no_data_directory`.
 */
export const skillBundleErrorCodes = [
  'corrupt_zip',
  'archive_too_large',
  'header_mismatch',
  'overlapping_entries',
  'crc_mismatch',
  'size_mismatch',
  'corrupt_entry',
  'encrypted_entry',
  'unsupported_compression',
  'multi_disk_zip',
  'path_traversal',
  'absolute_path',
  'backslash_in_path',
  'control_character_in_name',
  'invalid_path',
  'path_too_long',
  'invalid_name_encoding',
  'duplicate_entry',
  'file_directory_conflict',
  'symlink_entry',
  'special_file_entry',
  'entry_too_large',
  'bundle_too_large',
  'too_many_entries',
  'template_in_custom_bundle',
  'missing_skill_md',
  'files_outside_wrapper',
  'invalid_front_matter',
  'invalid_skill_name',
  'reserved_skill_name',
  'wrapper_name_mismatch',
  'invalid_description',
  'findings_not_accepted',
  'skill_exists',
  'skill_not_found',
  'blob_not_found',
  'invalid_template',
  'unsafe_target',
  'no_data_directory',
] as const;

/** One of {@link skillBundleErrorCodes}. */
export type SkillBundleErrorCode = (typeof skillBundleErrorCodes)[number];

/** One reason a bundle is refused. `entry` is the raw entry name as it appears in the archive, when one is to blame. */
export interface SkillBundleProblem {
  readonly code: SkillBundleErrorCode;
  readonly message: string;
  readonly entry?: string;
}

/** Options for {@link SkillBundleError}. */
export interface SkillBundleErrorOptions extends ToolbusErrorOptions<SkillBundleErrorCode> {
  readonly entry?: string;
  /** Every problem found, when the caller collected more than one (the first one names this error). */
  readonly problems?: readonly SkillBundleProblem[];
  /** Content-scan findings, for `findings_not_accepted`. */
  readonly findings?: readonly SkillContentFinding[];
}

/** A skill bundle was refused, or a skills operation (ingest, seed, materialise) failed for a stated reason. */
export class SkillBundleError extends ToolbusError<SkillBundleErrorCode> {
  static override readonly errorName = 'SkillBundleError';

  readonly entry: string | undefined;
  readonly problems: readonly SkillBundleProblem[];
  readonly findings: readonly SkillContentFinding[];

  constructor(options: SkillBundleErrorOptions) {
    super(options);
    this.entry = options.entry;
    this.findings = options.findings ?? [];
    this.problems = options.problems ?? [
      options.entry === undefined
        ? { code: options.code, message: options.message }
        : { code: options.code, message: options.message, entry: options.entry },
    ];
  }

  /** Builds the error for a problem found while inspecting a bundle. */
  static fromProblems(problems: readonly [SkillBundleProblem, ...SkillBundleProblem[]]): SkillBundleError {
    const [first] = problems;
    return new SkillBundleError({ ...first, problems });
  }
}

/** Renders an entry name for a message: quoted, with control and invisible characters escaped. */
export function describeEntryName(name: string): string {
  return JSON.stringify(name).replace(
    /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
