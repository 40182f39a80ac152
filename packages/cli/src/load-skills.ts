import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createFilesystemBlobStore,
  materializeSkills,
  openSqliteSkillRegistry,
  renderSkillsPromptSection,
} from '@toolbus/skills';
import type { CliConfig } from './cli-config.ts';

/** The skills a chat delivers into the sandbox, and what the model is told about them. */
export interface ChatSkills {
  readonly names: readonly string[];
  /** A folder holding each skill read-only under `<name>/`, for the sandbox to mount; undefined without skills. */
  readonly root: string | undefined;
  /** The system-prompt section naming each skill, its description and where it is. */
  readonly promptSection: string;
  close(): Promise<void>;
}

/** Where `toolbus skills` keeps its registry and blobs: `$TOOLBUS_DATA_DIR`, else `<toolbus home>/skills`. */
export function skillsDataDirectory(
  config: CliConfig,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return env.TOOLBUS_DATA_DIR || config.skillsDirectory;
}

/**
 * The administrator's reserved skill names (besides the built-in skills' names, always reserved): the config
 * file's `skills.reservedNames` and `$TOOLBUS_RESERVED_SKILL_NAMES` (comma-separated). `toolbus skills` and
 * `toolbus serve` both validate with these.
 */
export function reservedSkillNames(
  config: CliConfig,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  return [
    ...(env.TOOLBUS_RESERVED_SKILL_NAMES ?? '').split(','),
    ...(config.file.skills?.reservedNames ?? []),
  ]
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/**
 * Loads the stored skills (`toolbus skills add` / `seed`) and writes them read-only into a fresh folder that the
 * sandbox mounts at /workspace/managed/skills. The folder lives under the system's temporary directory, not the
 * private toolbus home, because the sandboxed code runs as another user and must be able to read it.
 */
export async function loadChatSkills(
  config: CliConfig,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ChatSkills> {
  const directory = skillsDataDirectory(config, env);
  const database = join(directory, 'skills.sqlite');
  const none: ChatSkills = { names: [], root: undefined, promptSection: '', close: async () => {} };
  if (!existsSync(database)) return none;
  const registry = await openSqliteSkillRegistry({ database });
  const records = await registry.list();
  if (records.length === 0) return none;
  const root = await mkdtemp(join(tmpdir(), 'toolbus-skills-'));
  await chmod(root, 0o755);
  const materialized = await materializeSkills({
    skills: records,
    blobStore: createFilesystemBlobStore({ directory: join(directory, 'blobs') }),
    targetDirectory: root,
  });
  return {
    names: materialized.map((skill) => skill.name),
    root,
    promptSection: renderSkillsPromptSection(materialized),
    async close() {
      // The materialised files are read-only on purpose; make them writable again to remove them.
      await chmodTree(root);
      await rm(root, { recursive: true, force: true });
    },
  };
}

async function chmodTree(path: string): Promise<void> {
  const { readdir, stat } = await import('node:fs/promises');
  const info = await stat(path);
  await chmod(path, info.isDirectory() ? 0o755 : 0o644);
  if (info.isDirectory()) for (const entry of await readdir(path)) await chmodTree(join(path, entry));
}
