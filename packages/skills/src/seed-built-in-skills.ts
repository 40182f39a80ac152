import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BlobStore } from './blob-store.ts';
import { builtInSkillNames } from './built-in-skill-names.ts';
import { ingestSkillBundle } from './ingest-skill-bundle.ts';
import {
  type BuiltInTemplateValues,
  renderSkillTemplate,
  resolveTemplateValues,
} from './render-skill-template.ts';
import type { SkillBundle } from './skill-bundle.ts';
import { SkillBundleError } from './skill-bundle-error.ts';
import type { SkillRegistry } from './skill-registry.ts';
import { validateSkillBundle } from './validate-skill-bundle.ts';
import { writeZip, type ZipFileInput } from './zip/write-zip.ts';

/** The folder holding the built-in skills shipped with this package (one sub-folder per skill). */
export const builtInSkillsDirectory = fileURLToPath(new URL('../builtin/', import.meta.url));

/** Options for {@link buildBuiltInSkill}. */
export interface BuildBuiltInSkillOptions {
  readonly name: string;
  readonly values?: BuiltInTemplateValues | undefined;
  /** Default {@link builtInSkillsDirectory}. */
  readonly directory?: string | undefined;
}

/**
 * Builds one built-in skill from its folder: `.template` files are rendered with the deployment's values (and
 * lose their suffix), hidden files and `__pycache__` are skipped, symlinks are refused, and the result goes through
 * the same validation as an upload. Its front-matter name must equal the folder name.
 */
export async function buildBuiltInSkill(options: BuildBuiltInSkillOptions): Promise<SkillBundle> {
  const root = join(options.directory ?? builtInSkillsDirectory, options.name);
  const values = resolveTemplateValues(options.values ?? {}, options.name);
  const files = new Map<string, Buffer>();
  for (const path of await listFiles(root, '')) {
    const data = await readFile(join(root, path));
    if (!path.endsWith('.template')) {
      addFile(files, path, data);
      continue;
    }
    const text = renderSkillTemplate({
      text: data.toString('utf8'),
      values,
      file: `${options.name}/${path}`,
    });
    addFile(files, path.slice(0, -'.template'.length), Buffer.from(text, 'utf8'));
  }
  const sorted: ZipFileInput[] = [...files]
    .sort(([left], [right]) => (left < right ? -1 : 1))
    .map(([path, data]) => ({ path, data }));
  const chunks: Buffer[] = [];
  for await (const chunk of writeZip(sorted)) chunks.push(chunk);
  const bundle = await validateSkillBundle(Buffer.concat(chunks), { isBuiltIn: true });
  if (bundle.name !== options.name) {
    throw new SkillBundleError({
      code: 'invalid_skill_name',
      message: `The built-in skill in folder "${options.name}" is named "${bundle.name}" in its SKILL.md.`,
    });
  }
  return bundle;
}

function addFile(files: Map<string, Buffer>, path: string, data: Buffer): void {
  if (files.has(path)) {
    throw new SkillBundleError({
      code: 'duplicate_entry',
      message: `${path} exists both as a file and as a template.`,
      entry: path,
    });
  }
  files.set(path, data);
}

async function listFiles(root: string, prefix: string): Promise<string[]> {
  const paths: string[] = [];
  for (const name of (await readdir(join(root, prefix))).sort()) {
    if (name.startsWith('.') || name === '__pycache__') continue;
    const path = prefix === '' ? name : `${prefix}/${name}`;
    const info = await lstat(join(root, path));
    if (info.isSymbolicLink()) {
      throw new SkillBundleError({
        code: 'symlink_entry',
        message: `Built-in skill file ${path} is a symlink.`,
        entry: path,
      });
    }
    if (info.isDirectory()) paths.push(...(await listFiles(root, path)));
    else if (info.isFile()) paths.push(path);
  }
  return paths;
}

/** Options for {@link seedBuiltInSkills}. */
export interface SeedBuiltInSkillsOptions {
  readonly blobStore: BlobStore;
  readonly registry: SkillRegistry;
  readonly values?: BuiltInTemplateValues;
  /** Which built-ins to seed. Default: all of `builtInSkillNames`. */
  readonly names?: readonly string[];
  /** Default {@link builtInSkillsDirectory}. */
  readonly directory?: string;
}

/** What seeding did for one built-in skill. */
export interface SeededSkill {
  readonly name: string;
  readonly status: 'created' | 'updated' | 'unchanged';
}

/**
 * Renders and stores the built-in skills. Idempotent: a built-in whose rendered content hash equals its stored
 * row is left alone (no new row, no new blob); one whose content changed (new version, new deployment values) is
 * replaced and its old blob removed.
 */
export async function seedBuiltInSkills(options: SeedBuiltInSkillsOptions): Promise<SeededSkill[]> {
  const results: SeededSkill[] = [];
  for (const name of options.names ?? builtInSkillNames) {
    const bundle = await buildBuiltInSkill({
      name,
      values: options.values,
      directory: options.directory,
    });
    const existing = await options.registry.get(name);
    if (existing !== undefined && existing.sha256 === bundle.sha256 && existing.isBuiltIn) {
      results.push({ name, status: 'unchanged' });
      continue;
    }
    // Findings are not accepted here either: a built-in that trips the scan fails seeding loudly, for review.
    await ingestSkillBundle({
      bundle,
      blobStore: options.blobStore,
      registry: options.registry,
      replace: true,
    });
    results.push({ name, status: existing === undefined ? 'created' : 'updated' });
  }
  return results;
}
