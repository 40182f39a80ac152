import { createHash } from 'node:crypto';
import { builtInSkillNames } from './built-in-skill-names.ts';
import { bundleSources } from './bundle-sources.ts';
import { collisionKey } from './check-entry-path.ts';
import { parseSkillFrontMatter } from './parse-skill-front-matter.ts';
import { type PlannedFile, planBundleFiles } from './plan-bundle-files.ts';
import { EntryProblem, ProblemCollector, StopInspection } from './problem-collector.ts';
import { readBundleInput } from './read-bundle-input.ts';
import { type SkillContentFinding, scanSkillContent } from './scan-skill-content.ts';
import type {
  SkillBundle,
  SkillBundleFile,
  SkillBundleInput,
  SkillBundleInspection,
  ValidateSkillBundleOptions,
} from './skill-bundle.ts';
import { describeEntryName } from './skill-bundle-error.ts';
import { crossCheckWithYauzl } from './zip/cross-check-with-yauzl.ts';
import { readEntryData } from './zip/read-entry-data.ts';
import { readZipDirectory } from './zip/read-zip-directory.ts';
import type { ZipEntry } from './zip/zip-entry.ts';

/** Default per-file limit: 25 MiB. */
export const defaultPerFileMaxBytes = 25 * 1024 * 1024;
/** Default total limit: 100 MiB. */
export const defaultTotalMaxBytes = 100 * 1024 * 1024;
/** Default entry-count limit. */
export const defaultMaxEntries = 10_000;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Options for {@link inspectSkillBundle}. */
export interface InspectSkillBundleOptions extends ValidateSkillBundleOptions {
  /** Stop at the first problem (what validation does). Default false: gather every problem. */
  readonly stopAtFirstProblem?: boolean;
}

/**
 * Reads a skill bundle and reports every problem (or, with `stopAtFirstProblem`, the first), with the bundle
 * when there were none. Nothing is written to disk. Memory stays bounded by the archive's size plus one file being
 * read: entries are inflated in 64 KiB chunks against the limits, never trusting declared sizes.
 */
export async function inspectSkillBundle(
  input: SkillBundleInput,
  options: InspectSkillBundleOptions = {},
): Promise<SkillBundleInspection> {
  const problems = new ProblemCollector(options.stopAtFirstProblem ?? false);
  const findings: SkillContentFinding[] = [];
  try {
    const bundle = await inspect(input, options, problems, findings);
    return problems.problems.length === 0 && bundle !== undefined
      ? { bundle, problems: [], findings }
      : { problems: problems.problems, findings };
  } catch (error) {
    if (error instanceof StopInspection) return { problems: problems.problems, findings };
    throw error;
  }
}

async function inspect(
  input: SkillBundleInput,
  options: InspectSkillBundleOptions,
  problems: ProblemCollector,
  findings: SkillContentFinding[],
): Promise<SkillBundle | undefined> {
  const perFileMaxBytes = options.perFileMaxBytes ?? defaultPerFileMaxBytes;
  const totalMaxBytes = options.totalMaxBytes ?? defaultTotalMaxBytes;
  const maxArchiveBytes = options.maxArchiveBytes ?? totalMaxBytes + 16 * 1024 * 1024;
  const isBuiltIn = options.isBuiltIn ?? false;
  const archive = await readBundleInput(input, maxArchiveBytes);
  if (archive === undefined) {
    problems.add({
      code: 'archive_too_large',
      message: `The archive is larger than ${maxArchiveBytes} bytes.`,
    });
    return undefined;
  }
  const entries = readZipDirectory(archive, {
    maxEntries: options.maxEntries ?? defaultMaxEntries,
    problems,
  });
  if (entries === undefined) return undefined;
  const { files: planned, wrapper } = planBundleFiles({
    entries,
    problems,
    isBuiltIn,
    perFileMaxBytes,
    totalMaxBytes,
  });
  if (problems.problems.length === 0) await crossCheckWithYauzl(archive, { entries, problems });

  const files: SkillBundleFile[] = [];
  const sources = new Map<string, ZipEntry>();
  let skillText: string | undefined;
  let total = 0;
  const blamed = new Set(problems.problems.map((problem) => problem.entry));
  const readable = planned
    .filter(({ entry }) => entry.readable && !blamed.has(entry.displayName))
    .sort((left, right) => left.entry.dataStart - right.entry.dataStart);
  for (const file of readable) {
    const result = await readPlannedFile(archive, file, {
      perFileMaxBytes,
      remaining: totalMaxBytes - total,
    });
    if ('problem' in result) {
      problems.add(result.problem);
      if (result.problem.code === 'bundle_too_large') break; // no budget left for anything else
      continue;
    }
    total += result.size;
    files.push({
      path: file.path,
      archivePath: file.entry.displayName,
      size: result.size,
      sha256: result.sha256,
    });
    sources.set(file.path, file.entry);
    if (result.text === undefined) continue;
    if (file.path === 'SKILL.md') skillText = result.text.text;
    findings.push(...scanSkillContent({ file: file.path, ...result.text }));
  }
  if (planned.some(({ path }) => path === 'SKILL.md') && skillText === undefined && sources.has('SKILL.md')) {
    problems.add({ code: 'invalid_front_matter', message: 'SKILL.md is not UTF-8 text.', entry: 'SKILL.md' });
  }
  if (skillText === undefined) return undefined;
  const parsed = parseSkillFrontMatter(skillText);
  if (Array.isArray(parsed)) {
    for (const problem of parsed) problems.add(problem);
    return undefined;
  }
  const { name } = parsed.frontMatter;
  // One name for the skill: the folder it came in and its front matter must agree, or the skill would be
  // listed under one name and unpacked under another.
  if (wrapper !== undefined && wrapper !== name) {
    problems.add({
      code: 'wrapper_name_mismatch',
      message: `SKILL.md: the name "${name}" differs from its wrapping folder "${wrapper}"; rename the folder to "${name}" (or put SKILL.md at the root of the archive).`,
      entry: 'SKILL.md',
    });
    return undefined;
  }
  if (!isBuiltIn) {
    const reservedBy = reservationOf(name, options.reservedNames);
    if (reservedBy !== undefined) {
      problems.add({
        code: 'reserved_skill_name',
        message: `SKILL.md: the name "${name}" is reserved ${reservedBy === 'built-in' ? 'by a built-in skill' : 'by the administrator'}.`,
        entry: 'SKILL.md',
      });
      return undefined;
    }
  }
  if (problems.problems.length > 0) return undefined;
  files.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
  findings.sort((left, right) =>
    left.file === right.file ? left.line - right.line : left.file < right.file ? -1 : 1,
  );
  const bundleHash = createHash('sha256');
  for (const file of files) bundleHash.update(`${file.path}\0${file.size}\0${file.sha256}\n`);
  const bundle: SkillBundle = {
    name: parsed.frontMatter.name,
    description: parsed.frontMatter.description,
    frontMatter: parsed.frontMatter,
    instructions: parsed.body,
    files,
    totalBytes: total,
    sha256: bundleHash.digest('hex'),
    findings,
    isBuiltIn,
  };
  bundleSources.set(bundle, { archive, entries: sources });
  return bundle;
}

/**
 * Whether a custom skill may not take `name`: a built-in skill's name always, and the names an administrator
 * reserves (compared after Unicode compatibility and case folding, as file names are).
 */
function reservationOf(
  name: string,
  adminReserved: Iterable<string> | undefined,
): 'built-in' | 'administrator' | undefined {
  const key = collisionKey(name);
  if (builtInSkillNames.some((builtIn) => collisionKey(builtIn) === key)) return 'built-in';
  for (const reserved of adminReserved ?? [])
    if (collisionKey(reserved.trim()) === key) return 'administrator';
  return undefined;
}

type ReadResult =
  | {
      readonly size: number;
      readonly sha256: string;
      readonly text: { readonly text: string; readonly bytes: Buffer } | undefined;
    }
  | { readonly problem: import('./skill-bundle-error.ts').SkillBundleProblem };

async function readPlannedFile(
  archive: Buffer,
  file: PlannedFile,
  limits: { readonly perFileMaxBytes: number; readonly remaining: number },
): Promise<ReadResult> {
  const { entry } = file;
  const label = describeEntryName(entry.displayName);
  const hash = createHash('sha256');
  // Text is kept (for the scan and SKILL.md) only while it looks like text: no NUL byte.
  let textChunks: Buffer[] | undefined = [];
  let size = 0;
  try {
    for await (const chunk of readEntryData(archive, entry)) {
      size += chunk.length;
      if (size > limits.perFileMaxBytes) {
        return {
          problem: {
            code: 'entry_too_large',
            message: `${label} expands past ${limits.perFileMaxBytes} bytes, the per-file limit.`,
            entry: entry.displayName,
          },
        };
      }
      if (size > limits.remaining) {
        return {
          problem: {
            code: 'bundle_too_large',
            message: `The bundle expands past its total limit at ${label}.`,
            entry: entry.displayName,
          },
        };
      }
      hash.update(chunk);
      if (textChunks !== undefined) {
        if (chunk.includes(0)) textChunks = undefined;
        else textChunks.push(chunk); // chunks are never reused: fresh inflater output or slices of the archive
      }
    }
  } catch (error) {
    if (error instanceof EntryProblem) return { problem: error.problem };
    throw error;
  }
  let text: { readonly text: string; readonly bytes: Buffer } | undefined;
  if (textChunks !== undefined) {
    const bytes = Buffer.concat(textChunks, size);
    try {
      text = { text: utf8.decode(bytes), bytes };
    } catch {
      text = undefined;
    }
  }
  return { size, sha256: hash.digest('hex'), text };
}
