import { constants } from 'node:fs';
import { access, lstat, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { HttpError } from './http-error.ts';

/** Where the sandbox sees the requested skills, one read-only folder per skill. */
export const skillsMountDirectory = '/workspace/managed/skills';

/** The folder of the workspace that holds {@link skillsMountDirectory}; reserved when skills are mounted. */
export const managedWorkspaceFolder = 'managed';

/** Skill names as @toolbus/skills issues them: lowercase words joined by single hyphens. */
export const skillNamePattern = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** At most this many skills per request. */
export const maxSkillsPerRequest = 64;

/** A skill folder on the host, bound read-only at `/workspace/managed/skills/<name>`. */
export interface SkillMount {
  readonly name: string;
  readonly source: string;
}

/**
 * The host folder holding materialised skills (one sub-folder per name). Resolved once at start; requests name
 * skills, and each name is checked to be a real folder directly inside it, so nothing a request says can bind
 * another host path into a sandbox.
 */
export class SkillsDirectory {
  readonly root: string;

  private constructor(root: string) {
    this.root = root;
  }

  /**
   * Resolves `root` (symlinks in the configured path itself are allowed: they are the operator's) and checks that
   * sandboxes can read it. When the service is root, sandboxes run as other uids, so every folder from `/` down to
   * the root must be searchable by others, or bubblewrap could not bind the skills: refused at start, not per run.
   */
  static async open(options: { root: string; sandboxesRunAsOtherUsers: boolean }): Promise<SkillsDirectory> {
    let root: string;
    try {
      root = await realpath(options.root);
    } catch (error) {
      throw new Error(`skillsRoot ${options.root} does not exist`, { cause: error });
    }
    const info = await lstat(root);
    if (!info.isDirectory()) throw new Error(`skillsRoot ${options.root} is not a folder`);
    await access(root, constants.R_OK | constants.X_OK);
    if (options.sandboxesRunAsOtherUsers) {
      for (let folder = root; ; folder = dirname(folder)) {
        const mode = (await lstat(folder)).mode;
        const needed = folder === root ? 0o005 : 0o001;
        if ((mode & needed) !== needed) {
          throw new Error(
            `skillsRoot ${options.root}: ${folder} is not ${folder === root ? 'readable and searchable' : 'searchable'} by other users (mode ${(mode & 0o777).toString(8)}), so sandboxes could not read the skills`,
          );
        }
        if (dirname(folder) === folder) break;
      }
    }
    return new SkillsDirectory(root);
  }

  /**
   * Finds the folder of each (already validated) name: a real folder directly under the root, not a symlink (which
   * would make bubblewrap bind whatever it points to). An unknown name is a 400 that names it.
   */
  async resolve(names: readonly string[]): Promise<SkillMount[]> {
    const mounts: SkillMount[] = [];
    for (const name of names) {
      const source = join(this.root, name);
      const info = await lstat(source).catch(() => undefined);
      if (info === undefined || !info.isDirectory()) throw unknownSkill(name);
      mounts.push({ name, source });
    }
    return mounts;
  }
}

/** The 400 for a skill this service does not have. */
export function unknownSkill(name: string): HttpError {
  return new HttpError({
    status: 400,
    code: 'skill_not_found',
    message: `no skill named ${name} on this service`,
  });
}
