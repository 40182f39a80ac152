export type { BlobStore } from './blob-store.ts';
export { builtInSkillNames } from './built-in-skill-names.ts';
export type { CopiedSkills, SkillStorePair } from './copy-missing-skills.ts';
export { copyMissingSkills } from './copy-missing-skills.ts';
export type { FilesystemBlobStoreOptions } from './filesystem-blob-store.ts';
export { createFilesystemBlobStore } from './filesystem-blob-store.ts';
export type { IngestSkillBundleOptions } from './ingest-skill-bundle.ts';
export { ingestSkillBundle } from './ingest-skill-bundle.ts';
export * from './inspect-skill-bundle.ts';
export { loadStoredSkillBundle } from './load-stored-skill-bundle.ts';
export type { MaterializedSkill, MaterializeSkillsOptions } from './materialize-skills.ts';
export { materializeSkills } from './materialize-skills.ts';
export type { SkillStores } from './open-skill-stores.ts';
export { openSkillStores, openSqlSkillStores } from './open-skill-stores.ts';
export type { ParsedSkillDocument, SkillFrontMatter } from './parse-skill-front-matter.ts';
export { parseSkillFrontMatter } from './parse-skill-front-matter.ts';
export { readSkillBundleFile } from './read-skill-bundle-file.ts';
export { removeSkill } from './remove-skill.ts';
export type { BuiltInTemplateValues } from './render-skill-template.ts';
export { renderSkillTemplate, skillTemplateVariables } from './render-skill-template.ts';
export { defaultSkillsMountDirectory, renderSkillsPromptSection } from './render-skills-prompt-section.ts';
export type { SkillContentFinding, SkillContentFindingKind } from './scan-skill-content.ts';
export { scanSkillContent } from './scan-skill-content.ts';
export * from './seed-built-in-skills.ts';
export type {
  SkillBundle,
  SkillBundleFile,
  SkillBundleInput,
  SkillBundleInspection,
  ValidateSkillBundleOptions,
} from './skill-bundle.ts';
export type {
  SkillBundleErrorCode,
  SkillBundleErrorOptions,
  SkillBundleProblem,
} from './skill-bundle-error.ts';
export { SkillBundleError, skillBundleErrorCodes } from './skill-bundle-error.ts';
export type { SkillRecord, SkillRegistry } from './skill-registry.ts';
export { sqlBlobStore } from './sql-blob-store.ts';
export type { OpenedSkillRegistry } from './sql-skill-registry.ts';
export { openSqlSkillRegistry } from './sql-skill-registry.ts';
export type { SqliteSkillRegistryOptions } from './sqlite-skill-registry.ts';
export { openSqliteSkillRegistry } from './sqlite-skill-registry.ts';
export { validateSkillBundle } from './validate-skill-bundle.ts';
export { writeNormalisedSkillBundle } from './write-normalised-skill-bundle.ts';
