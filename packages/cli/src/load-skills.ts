import { existsSync } from 'node:fs';
import { chmod, lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerLogger } from '@toolbus/server';
import {
  type BlobStore,
  type MaterializedSkill,
  materializeSkills,
  renderSkillsPromptSection,
  type SkillRecord,
  type SkillRegistry,
} from '@toolbus/skills';
import { type CliConfig, skillsDataDirectory } from './cli-config.ts';
import { openConfiguredSkillStores } from './open-configured-storage.ts';

/** One set of skills written out for the sandbox, and what the model is told about it. */
export interface ChatSkillsSnapshot {
  readonly names: readonly string[];
  /** A folder holding each skill read-only under `<name>/`, for the sandbox to mount; undefined without skills. */
  readonly root: string | undefined;
  /** The system-prompt section naming each skill, its description and where it is. */
  readonly promptSection: string;
}

/** The skills a chat delivers into the sandbox, and what the model is told about them. */
export interface ChatSkills extends ChatSkillsSnapshot {
  close(): Promise<void>;
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
 * Loads the stored skills (`toolbus skills add` / `seed`) once and writes them read-only into a fresh folder that the
 * sandbox mounts at /workspace/managed/skills: `toolbus chat`, one process per chat. The stores are the configured
 * ones (PostgreSQL's when storage is there). A stored skill that does not load (its bundle changed or gone) fails
 * the chat, naming it.
 */
export async function loadChatSkills(
  config: CliConfig,
  env: Readonly<Record<string, string | undefined>>,
  notice?: (line: string) => void,
): Promise<ChatSkills> {
  // On SQLite, a home without a registry file has no skills (and gets no file from a chat).
  const registryFile = join(skillsDataDirectory(config, env), 'skills.sqlite');
  if (config.storageUrl.value === undefined && !existsSync(registryFile))
    return { ...noSkills, close: async () => {} };
  const stores = await openConfiguredSkillStores(config, env, undefined, notice);
  let loaded: Awaited<ReturnType<typeof writeSkillSet>>;
  try {
    loaded = await writeSkillSet(await stores.registry.list(), stores.blobStore);
  } finally {
    await stores.close();
  }
  if ('failed' in loaded) throw loaded.failed.error;
  return { ...loaded, close: () => removeSkillFolder(loaded.root) };
}

/** The skills of one turn of `toolbus serve`, held until {@link ChatSkillsLease.release}. */
export interface ChatSkillsLease extends ChatSkillsSnapshot {
  /** The turn has ended: the set's folder may go once no other turn holds it and a newer set serves. */
  release(): Promise<void>;
}

/** The skills of `toolbus serve`'s turns, kept current while it runs: see {@link openLiveChatSkills}. */
export interface LiveChatSkills {
  /** The set written last (the one the sandbox service is warmed with at start). */
  readonly current: ChatSkillsSnapshot;
  /** The skills stored now, for a turn that starts now; its folder stays until the lease is released. */
  acquire(): Promise<ChatSkillsLease>;
  /** Removes every folder written (shutdown, after the last turn). */
  close(): Promise<void>;
}

/** A written set: its folder, the registry state it was written from, and the turns holding it. */
interface HeldSet {
  readonly snapshot: ChatSkillsSnapshot;
  readonly fingerprint: string;
  leases: number;
  /** A newer set serves new turns: this one's folder goes with its last lease. */
  retired: boolean;
}

/**
 * The skills of `toolbus serve`, one owner for the whole process. The stores are shared with the admin API (and
 * with `toolbus skills` in other processes and other replicas, through the same files or database), so a skill added, replaced or removed there is
 * seen by the next turn that starts:
 *
 * - Each turn start reads the registry (one query on its small table) and compares each skill's name and content
 *   hash with the set written last. Only a change writes a new set, into a fresh folder; turns starting meanwhile
 *   wait for that one check instead of starting their own (and one more check runs after it, for the turns that
 *   arrived while it was already reading: they may have started after its read).
 * - A written folder is never changed. A turn takes a lease on the set current when it starts, and keeps it (its
 *   run_python description and the folder its sandbox mounts) until it ends; an older set's folder is removed when
 *   its last lease is released, every folder on close.
 * - A registry state that does not load (a stored bundle changed or gone) is logged with the skill's name and the
 *   reason's code, and not tried again until the registry changes; turns keep the last set that loaded. That is
 *   what one bad skill does to a whole set elsewhere (`materializeSkills` stops at it, `toolbus chat` and serve's
 *   start refuse it), without breaking the chats of a running server.
 */
export async function openLiveChatSkills(options: {
  readonly registry: SkillRegistry;
  readonly blobStore: BlobStore;
  readonly logger: Pick<ServerLogger, 'info' | 'warn'>;
}): Promise<LiveChatSkills> {
  const { registry, blobStore, logger } = options;
  const records = await registry.list();
  const first = await writeSkillSet(records, blobStore);
  if ('failed' in first) throw first.failed.error;
  let current: HeldSet = { snapshot: first, fingerprint: fingerprintOf(records), leases: 0, retired: false };
  // Every set whose folder is still on disk.
  const written = new Set<HeldSet>([current]);
  let refused: string | undefined;
  let closed = false;

  const remove = async (held: HeldSet) => {
    if (!written.delete(held)) return;
    await removeSkillFolder(held.snapshot.root);
    if (held.snapshot.root !== undefined)
      logger.info('skills.folder_removed', { skills: held.snapshot.names.length });
  };

  const refresh = async () => {
    const stored = await registry.list();
    const fingerprint = fingerprintOf(stored);
    if (closed || fingerprint === current.fingerprint || fingerprint === refused) return;
    const loaded = await writeSkillSet(stored, blobStore);
    if ('failed' in loaded) {
      refused = fingerprint;
      logger.warn('skills.skill_not_loaded', {
        skill: loaded.failed.name,
        code: errorCode(loaded.failed.error),
      });
      return;
    }
    const previous = current;
    current = { snapshot: loaded, fingerprint, leases: 0, retired: false };
    written.add(current);
    logger.info('skills.reloaded', { skills: loaded.names.length });
    previous.retired = true;
    if (previous.leases === 0) await remove(previous);
  };

  let checking: Promise<void> | undefined;
  let following: Promise<void> | undefined;
  const check = (): Promise<void> => {
    if (checking === undefined) {
      checking = refresh()
        .catch((error: unknown) => logger.warn('skills.reload_failed', { code: errorCode(error) }))
        .finally(() => {
          checking = undefined;
        });
      return checking;
    }
    following ??= checking.then(() => {
      following = undefined;
      return check();
    });
    return following;
  };

  return {
    get current() {
      return current.snapshot;
    },
    async acquire() {
      if (!closed) await check();
      const held = current;
      held.leases += 1;
      let released = false;
      return {
        ...held.snapshot,
        async release() {
          if (released) return;
          released = true;
          held.leases -= 1;
          if (held.retired && held.leases === 0) await remove(held);
        },
      };
    },
    async close() {
      closed = true;
      await checking;
      await following;
      for (const held of [...written]) await remove(held);
    },
  };
}

const noSkills: ChatSkillsSnapshot = { names: [], root: undefined, promptSection: '' };

/** What the registry holds, as far as the written files go: each skill's name and content hash. */
function fingerprintOf(records: readonly SkillRecord[]): string {
  return records.map((record) => `${record.name}\u0000${record.sha256}`).join('\n');
}

/**
 * Writes `records` read-only into a fresh folder, or says which skill did not load (its bundle is read back from the
 * blob store and validated again) and removes what was written. The folder lives under the system's temporary
 * directory, not the private toolbus home, because the sandboxed code runs as another user and must be able to
 * read it.
 */
async function writeSkillSet(
  records: readonly SkillRecord[],
  blobStore: BlobStore,
): Promise<ChatSkillsSnapshot | { readonly failed: { readonly name: string; readonly error: unknown } }> {
  if (records.length === 0) return noSkills;
  const root = await mkdtemp(join(tmpdir(), 'toolbus-skills-'));
  await chmod(root, 0o755);
  const materialized: MaterializedSkill[] = [];
  for (const record of records) {
    try {
      materialized.push(...(await materializeSkills({ skills: [record], blobStore, targetDirectory: root })));
    } catch (error) {
      await removeSkillFolder(root);
      return { failed: { name: record.name, error } };
    }
  }
  return {
    names: materialized.map((skill) => skill.name),
    root,
    promptSection: renderSkillsPromptSection(materialized),
  };
}

/** Removes a written set: its files are read-only on purpose, so they are made writable again first. */
async function removeSkillFolder(root: string | undefined): Promise<void> {
  if (root === undefined) return;
  await makeWritable(root).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
}

async function makeWritable(path: string): Promise<void> {
  const info = await lstat(path);
  if (!info.isDirectory()) return;
  await chmod(path, 0o755);
  for (const entry of await readdir(path)) await makeWritable(join(path, entry));
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'unknown';
}
