/**
 * Names of the built-in skills shipped in `packages/skills/builtin/`. Custom bundles may not use them; a test keeps
 * this list equal to the folders.
 */
export const builtInSkillNames: readonly string[] = ['csv-analysis', 'pdf-reports'];
