import { inspectSkillBundle } from './inspect-skill-bundle.ts';
import type { SkillBundle, SkillBundleInput, ValidateSkillBundleOptions } from './skill-bundle.ts';
import { SkillBundleError } from './skill-bundle-error.ts';

/**
 * Validates an uploaded skill bundle (a zip, as bytes or a stream) and resolves to the normalised bundle, or
 * rejects with a {@link SkillBundleError} at the first problem (its `code` is one of `skillBundleErrorCodes`, its
 * message names the entry). Content-scan findings do not refuse a bundle: they come back in `bundle.findings`.
 */
export async function validateSkillBundle(
  input: SkillBundleInput,
  options: ValidateSkillBundleOptions = {},
): Promise<SkillBundle> {
  const inspection = await inspectSkillBundle(input, { ...options, stopAtFirstProblem: true });
  const [first, ...rest] = inspection.problems;
  if (first !== undefined) throw SkillBundleError.fromProblems([first, ...rest]);
  if (inspection.bundle === undefined)
    throw new Error('inspectSkillBundle returned neither a bundle nor a problem');
  return inspection.bundle;
}
