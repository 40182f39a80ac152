import { checkEntryPath, collisionKey, isIgnoredEntry } from './check-entry-path.ts';
import type { ProblemCollector } from './problem-collector.ts';
import { describeEntryName } from './skill-bundle-error.ts';
import type { ZipEntry } from './zip/zip-entry.ts';

const fileTypeMask = 0o170000;
const symlinkType = 0o120000;
const directoryType = 0o040000;
const regularType = 0o100000;
const dosDirectoryAttribute = 0x10;
const flagEncrypted = 0x0001;
const flagStrongEncryption = 0x0040;
const aesMethod = 99;

/** A file entry that passed the entry rules, with its path after flattening. */
export interface PlannedFile {
  readonly entry: ZipEntry;
  readonly path: string;
}

/** What {@link planBundleFiles} found: the files to read, and the wrapping folder they were taken out of. */
export interface BundlePlan {
  readonly files: PlannedFile[];
  /** The single folder that wraps SKILL.md and everything else; absent when SKILL.md is at the root. */
  readonly wrapper?: string;
}

/** Options for {@link planBundleFiles}. */
export interface PlanBundleFilesOptions {
  readonly entries: readonly ZipEntry[];
  readonly problems: ProblemCollector;
  readonly isBuiltIn: boolean;
  readonly perFileMaxBytes: number;
  readonly totalMaxBytes: number;
}

/**
 * Applies every rule that needs no decompression: encryption and method, names, entry types from the Unix mode
 * bits, duplicates (exact, by case and by Unicode normalisation), files used as folders, clutter, the wrapping
 * folder, `SKILL.md` presence, templates, and the declared sizes (a declared size over a limit is refused at
 * once; a declared size that lies is caught while inflating). Returns the files to read and the wrapping folder.
 */
export function planBundleFiles(options: PlanBundleFilesOptions): BundlePlan {
  const { problems } = options;
  const candidates: { entry: ZipEntry; segments: readonly string[] }[] = [];
  const keys = new Map<string, { name: string; isDirectory: boolean }>();
  for (const entry of options.entries) {
    const label = describeEntryName(entry.displayName);
    if (entry.name === undefined) {
      problems.add({
        code: 'invalid_name_encoding',
        message: `${label}: the name is not valid UTF-8.`,
        entry: entry.displayName,
      });
      continue;
    }
    const checked = checkEntryPath(entry.name);
    if ('code' in checked) {
      problems.add(checked);
      continue;
    }
    if ((entry.flags & (flagEncrypted | flagStrongEncryption)) !== 0 || entry.method === aesMethod) {
      problems.add({ code: 'encrypted_entry', message: `${label} is encrypted.`, entry: entry.name });
      continue;
    }
    if (entry.method !== 0 && entry.method !== 8) {
      problems.add({
        code: 'unsupported_compression',
        message: `${label} uses compression method ${entry.method}; only stored (0) and deflate (8) are accepted.`,
        entry: entry.name,
      });
      continue;
    }
    const fileType = (entry.externalAttributes >>> 16) & fileTypeMask;
    if (fileType === symlinkType) {
      problems.add({ code: 'symlink_entry', message: `${label} is a symbolic link.`, entry: entry.name });
      continue;
    }
    if (fileType !== 0 && fileType !== regularType && fileType !== directoryType) {
      problems.add({
        code: 'special_file_entry',
        message: `${label} is a device, pipe or socket.`,
        entry: entry.name,
      });
      continue;
    }
    // Many writers leave the attributes at zero; only attributes that contradict the trailing slash are refused.
    const saysDirectory =
      fileType === directoryType || (entry.externalAttributes & dosDirectoryAttribute) !== 0;
    const saysFile = fileType === regularType;
    if (
      (checked.isDirectory && (saysFile || entry.uncompressedSize !== 0)) ||
      (!checked.isDirectory && saysDirectory)
    ) {
      problems.add({
        code: 'special_file_entry',
        message: `${label} is ambiguous: its name and its attributes disagree about whether it is a folder.`,
        entry: entry.name,
      });
      continue;
    }
    if (isIgnoredEntry(checked.segments)) continue;
    const key = collisionKey(checked.segments.join('/'));
    const previous = keys.get(key);
    if (previous !== undefined) {
      const kind =
        previous.isDirectory !== checked.isDirectory ? 'file_directory_conflict' : 'duplicate_entry';
      problems.add({
        code: kind,
        message: `${label} collides with ${describeEntryName(previous.name)} (names equal up to case or Unicode normalisation).`,
        entry: entry.name,
      });
      continue;
    }
    keys.set(key, { name: entry.name, isDirectory: checked.isDirectory });
    if (!checked.isDirectory) candidates.push({ entry, segments: checked.segments });
  }
  for (const { entry, segments } of candidates) {
    for (let length = 1; length < segments.length; length += 1) {
      const ancestor = keys.get(collisionKey(segments.slice(0, length).join('/')));
      if (ancestor !== undefined && !ancestor.isDirectory) {
        problems.add({
          code: 'file_directory_conflict',
          message: `${describeEntryName(entry.displayName)} sits under ${describeEntryName(ancestor.name)}, which is a file.`,
          entry: entry.displayName,
        });
      }
    }
  }
  const plan = flatten(candidates, problems);
  checkPlannedFiles(plan.files, options);
  return plan;
}

function flatten(
  candidates: readonly { entry: ZipEntry; segments: readonly string[] }[],
  problems: ProblemCollector,
): BundlePlan {
  const atRoot = candidates.some(({ segments }) => segments.length === 1 && segments[0] === 'SKILL.md');
  if (atRoot)
    return { files: candidates.map(({ entry, segments }) => ({ entry, path: segments.join('/') })) };
  const wrappers = new Set(
    candidates
      .filter(({ segments }) => segments[1] === 'SKILL.md' && segments.length === 2)
      .map(({ segments }) => segments[0]!),
  );
  if (wrappers.size !== 1) {
    problems.add({
      code: 'missing_skill_md',
      message: 'The bundle has no SKILL.md at its root (or inside a single wrapping folder).',
    });
    return { files: [] };
  }
  const wrapper = [...wrappers][0] as string;
  const outside = candidates.filter(({ segments }) => segments[0] !== wrapper || segments.length === 1);
  for (const { entry } of outside) {
    problems.add({
      code: 'files_outside_wrapper',
      message: `${describeEntryName(entry.displayName)} lies outside the wrapping folder "${wrapper}" that holds SKILL.md.`,
      entry: entry.displayName,
    });
  }
  const files = candidates
    .filter(({ segments }) => segments[0] === wrapper && segments.length > 1)
    .map(({ entry, segments }) => ({ entry, path: segments.slice(1).join('/') }));
  return { files, wrapper };
}

function checkPlannedFiles(planned: readonly PlannedFile[], options: PlanBundleFilesOptions): void {
  const { problems } = options;
  let declaredTotal = 0;
  for (const { entry, path } of planned) {
    const label = describeEntryName(entry.displayName);
    // Folded like names are compared, so a full-width `.ｔｅｍｐｌａｔｅ` is a template too.
    if (!options.isBuiltIn && collisionKey(path).endsWith('.template')) {
      problems.add({
        code: 'template_in_custom_bundle',
        message: `${label}: custom skills cannot ship .template files (template rendering is reserved for built-in skills).`,
        entry: entry.displayName,
      });
    }
    if (entry.uncompressedSize > options.perFileMaxBytes) {
      problems.add({
        code: 'entry_too_large',
        message: `${label} declares ${entry.uncompressedSize} bytes; at most ${options.perFileMaxBytes} are allowed per file.`,
        entry: entry.displayName,
      });
    }
    declaredTotal += entry.uncompressedSize;
  }
  if (declaredTotal > options.totalMaxBytes) {
    problems.add({
      code: 'bundle_too_large',
      message: `The bundle declares ${declaredTotal} uncompressed bytes; at most ${options.totalMaxBytes} are allowed.`,
    });
  }
}
