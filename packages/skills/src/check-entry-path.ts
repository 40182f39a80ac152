import type { SkillBundleProblem } from './skill-bundle-error.ts';
import { describeEntryName } from './skill-bundle-error.ts';

/** Longest accepted entry path and path segment, in UTF-8 bytes (ext4 and most object stores accept these). */
export const maxEntryPathBytes = 1024;
const maxSegmentBytes = 255;

// C0 controls, DEL, C1 controls, and the Unicode line/paragraph separators: none belongs in a file name.
const controlCharacter = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** A name that passed every path rule: `segments` never contain `.`, `..` or empty parts. */
export interface CheckedEntryPath {
  readonly segments: readonly string[];
  readonly isDirectory: boolean;
}

/**
 * Applies the path rules to one entry name, exactly as stored, and again to its Unicode compatibility folding
 * (NFKC): a full-width `．．` is `..`, a full-width `／` or `＼` a separator, to every tool that folds names
 * (file systems on some platforms, archive tools, search indexes). Returns the problem that refuses it, or its
 * segments. Nothing is rewritten: a name with a backslash is refused, not "fixed".
 */
export function checkEntryPath(name: string): CheckedEntryPath | SkillBundleProblem {
  const checked = checkPathRules(name, name, '');
  if ('code' in checked) return checked;
  const folded = name.normalize('NFKC');
  if (folded === name) return checked;
  const foldedCheck = checkPathRules(folded, name, ' after Unicode compatibility folding (NFKC)');
  if ('code' in foldedCheck) return foldedCheck;
  if (foldedCheck.segments.length !== checked.segments.length) {
    return {
      code: 'invalid_path',
      message: `${describeEntryName(name)}: a character in the name folds to "/" under Unicode compatibility folding (NFKC).`,
      entry: name,
    };
  }
  return checked;
}

/** The rules on one spelling of a name; problems name the entry as stored and say which spelling failed. */
function checkPathRules(
  name: string,
  stored: string,
  spelling: string,
): CheckedEntryPath | SkillBundleProblem {
  const label = describeEntryName(stored);
  const refuse = (code: SkillBundleProblem['code'], message: string): SkillBundleProblem => ({
    code,
    message: `${label}: ${spelling === '' ? message : `${message.replace(/\.$/, '')}${spelling}.`}`,
    entry: stored,
  });
  if (name.length === 0) return refuse('invalid_path', 'an entry has an empty name.');
  if (controlCharacter.test(name))
    return refuse('control_character_in_name', 'the name holds a NUL or control character.');
  if (name.startsWith('\\\\') || name.startsWith('//'))
    return refuse('absolute_path', 'a UNC network path is not allowed.');
  if (/^[A-Za-z]:/.test(name)) return refuse('absolute_path', 'a drive-letter path is not allowed.');
  if (name.startsWith('/')) return refuse('absolute_path', 'an absolute path is not allowed.');
  if (name.includes('\\')) {
    return refuse(
      'backslash_in_path',
      'backslashes are not allowed (some tools read them as folder separators).',
    );
  }
  if (Buffer.byteLength(name) > maxEntryPathBytes) {
    return refuse('path_too_long', `the path is longer than ${maxEntryPathBytes} bytes.`);
  }
  const isDirectory = name.endsWith('/');
  const segments = (isDirectory ? name.slice(0, -1) : name).split('/');
  for (const segment of segments) {
    if (segment === '..') return refuse('path_traversal', 'the path climbs out of the bundle with "..".');
  }
  for (const segment of segments) {
    if (segment === '' || segment === '.')
      return refuse('invalid_path', 'the path has an empty or "." segment.');
    if (Buffer.byteLength(segment) > maxSegmentBytes) {
      return refuse('path_too_long', `a path segment is longer than ${maxSegmentBytes} bytes.`);
    }
  }
  return { segments, isDirectory };
}

/** OS clutter dropped from every bundle: macOS resource forks and folder metadata, Windows thumbnails. */
export function isIgnoredEntry(segments: readonly string[]): boolean {
  if (segments[0] === '__MACOSX') return true;
  const last = segments[segments.length - 1] ?? '';
  return last === '.DS_Store' || last === 'Thumbs.db' || last.startsWith('._');
}

/**
 * The key two names collide on: same text after Unicode compatibility folding (NFKC, so `ａ.txt` is `a.txt`) and
 * case folding.
 */
export function collisionKey(path: string): string {
  return path.normalize('NFKC').toLowerCase().normalize('NFKC');
}
