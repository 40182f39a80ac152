import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, readdir, rename, rm, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BlobStore } from './blob-store.ts';
import { loadStoredSkillBundle } from './load-stored-skill-bundle.ts';
import { readSkillBundleFile } from './read-skill-bundle-file.ts';
import type { SkillBundle } from './skill-bundle.ts';
import { SkillBundleError } from './skill-bundle-error.ts';
import type { SkillRecord } from './skill-registry.ts';

/** Options for {@link materializeSkills}. */
export interface MaterializeSkillsOptions {
  /** Stored skills (read from `blobStore` and validated again) or bundles returned by `validateSkillBundle`. */
  readonly skills: readonly (SkillRecord | SkillBundle)[];
  /** Needed when `skills` holds stored records. */
  readonly blobStore?: BlobStore;
  /** The host folder the sandbox mounts at `/workspace/managed/skills`. Created when missing; never a symlink. */
  readonly targetDirectory: string;
  /** Also remove sub-folders of `targetDirectory` that are not in `skills`. Default false. */
  readonly removeOthers?: boolean;
}

/** One skill written to disk. */
export interface MaterializedSkill {
  readonly name: string;
  readonly description: string;
  /** Host path of the skill's folder. */
  readonly directory: string;
  readonly fileCount: number;
}

const fileMode = 0o444;
const directoryMode = 0o555;
const writeFlags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Writes each skill's files under `<targetDirectory>/<name>/`, read-only (files 0444, folders 0555), for the
 * sandbox to mount at `/workspace/managed/skills/<name>/`. Each skill is written into a fresh staging folder
 * (files opened with O_EXCL | O_NOFOLLOW, so nothing planted there is followed) and then swapped in by rename, so
 * a sandbox never sees half a skill; an existing symlink in the skill's place is removed, never followed.
 */
export async function materializeSkills(options: MaterializeSkillsOptions): Promise<MaterializedSkill[]> {
  const target = options.targetDirectory;
  await mkdir(target, { recursive: true, mode: 0o755 });
  const targetInfo = await lstat(target);
  if (targetInfo.isSymbolicLink() || !targetInfo.isDirectory()) {
    throw new SkillBundleError({
      code: 'unsafe_target',
      message: `${target} must be a real folder, not a symlink.`,
    });
  }
  const names = new Set<string>();
  const results: MaterializedSkill[] = [];
  for (const skill of options.skills) {
    if (names.has(skill.name)) {
      throw new SkillBundleError({
        code: 'duplicate_entry',
        message: `Two skills are named "${skill.name}".`,
      });
    }
    names.add(skill.name);
    const bundle = 'blobKey' in skill ? await loadFromStore(skill, options.blobStore) : skill;
    results.push(await writeSkill(bundle, target));
  }
  if (options.removeOthers === true) {
    for (const name of await readdir(target)) {
      if (!names.has(name)) await removeTree(join(target, name));
    }
  }
  return results;
}

async function loadFromStore(record: SkillRecord, blobStore: BlobStore | undefined): Promise<SkillBundle> {
  if (blobStore === undefined)
    throw new TypeError('materializeSkills needs a blobStore to read stored skills');
  return loadStoredSkillBundle({ record, blobStore });
}

async function writeSkill(bundle: SkillBundle, target: string): Promise<MaterializedSkill> {
  const staging = join(target, `.staging-${bundle.name}-${randomUUID()}`);
  await mkdir(staging, { mode: 0o700 });
  const directories = new Set<string>([staging]);
  try {
    for (const file of bundle.files) {
      const path = join(staging, ...file.path.split('/'));
      for (let folder = dirname(path); !directories.has(folder); folder = dirname(folder))
        directories.add(folder);
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const handle = await open(path, writeFlags, 0o600);
      try {
        await handle.writeFile(await readSkillBundleFile(bundle, file.path));
      } finally {
        await handle.close();
      }
      await chmod(path, fileMode);
    }
    // Deepest folders first, so each folder is still writable while its children are sealed.
    for (const folder of [...directories].sort((left, right) => right.length - left.length)) {
      await chmod(folder, directoryMode);
    }
    const final = join(target, bundle.name);
    const existing = await lstat(final).catch(() => undefined);
    let old: string | undefined;
    if (existing?.isSymbolicLink() === true || existing?.isFile() === true) await unlink(final);
    else if (existing !== undefined) {
      old = join(target, `.old-${bundle.name}-${randomUUID()}`);
      await rename(final, old);
    }
    await rename(staging, final);
    if (old !== undefined) await removeTree(old);
    return {
      name: bundle.name,
      description: bundle.description,
      directory: final,
      fileCount: bundle.files.length,
    };
  } catch (error) {
    await removeTree(staging);
    throw error;
  }
}

/** Removes a tree we wrote read-only: makes its folders writable again (never following symlinks), then deletes. */
async function removeTree(path: string): Promise<void> {
  const info = await lstat(path).catch(() => undefined);
  if (info === undefined) return;
  if (info.isDirectory()) {
    await chmod(path, 0o700);
    for (const name of await readdir(path)) await removeTree(join(path, name));
  }
  await rm(path, { recursive: true, force: true });
}
