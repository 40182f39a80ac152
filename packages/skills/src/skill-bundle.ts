import type { SkillFrontMatter } from './parse-skill-front-matter.ts';
import type { SkillContentFinding } from './scan-skill-content.ts';
import type { SkillBundleProblem } from './skill-bundle-error.ts';
import type { ZipEntry } from './zip/zip-entry.ts';

/** One file of a validated bundle. */
export interface SkillBundleFile {
  /** Path inside the skill, `/`-separated, after the wrapping folder (if any) was removed. */
  readonly path: string;
  /** The entry name exactly as it was in the uploaded archive. */
  readonly archivePath: string;
  /** Uncompressed size in bytes, as counted while inflating. */
  readonly size: number;
  /** Lowercase hex SHA-256 of the file's content. */
  readonly sha256: string;
}

/** A bundle that passed every rule: its metadata, its files (sorted by path) and the content-scan findings. */
export interface SkillBundle {
  readonly name: string;
  readonly description: string;
  readonly frontMatter: SkillFrontMatter;
  /** The instructions of `SKILL.md` after the front matter. */
  readonly instructions: string;
  readonly files: readonly SkillBundleFile[];
  /** Sum of the file sizes. */
  readonly totalBytes: number;
  /**
   * Content hash of the normalised bundle: SHA-256 over, for each file sorted by path (UTF-16 code-unit order),
   * the line `<path>\0<size>\0<file sha256>\n`. Independent of zip encoding, timestamps and entry order.
   */
  readonly sha256: string;
  readonly findings: readonly SkillContentFinding[];
  /** True when the bundle was validated as a built-in (templates allowed, reserved names allowed). */
  readonly isBuiltIn: boolean;
}

/** What {@link inspectSkillBundle} reports: every problem found, and the bundle when there were none. */
export interface SkillBundleInspection {
  readonly bundle?: SkillBundle;
  readonly problems: readonly SkillBundleProblem[];
  /** Findings of the content scan over the files that could be read (also when the bundle was refused). */
  readonly findings: readonly SkillContentFinding[];
}

/** Where a validated bundle's bytes live, so its files can be read again without trusting anything new. */
export interface SkillBundleSource {
  readonly archive: Buffer;
  readonly entries: ReadonlyMap<string, ZipEntry>;
}

/** Bytes of a bundle: a whole buffer, or a stream of chunks (a Node readable, a web stream, a generator). */
export type SkillBundleInput = Uint8Array | AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

/** Limits and policy for validating a bundle. */
export interface ValidateSkillBundleOptions {
  /** Largest uncompressed file. Default 25 MiB. */
  readonly perFileMaxBytes?: number;
  /** Largest uncompressed total. Default 100 MiB. */
  readonly totalMaxBytes?: number;
  /** Most entries in the archive (directories and ignored clutter included). Default 10,000. */
  readonly maxEntries?: number;
  /** Largest archive accepted (compressed bytes). Default `totalMaxBytes` + 16 MiB. */
  readonly maxArchiveBytes?: number;
  /** Built-in skills may ship `.template` files and use reserved names. Default false. */
  readonly isBuiltIn?: boolean;
  /**
   * Names an administrator reserves (from configuration), which custom bundles may not take, in addition to the
   * built-in skills' names, which are always reserved.
   */
  readonly reservedNames?: Iterable<string>;
}
