import { HttpError } from './http-error.ts';

/**
 * Checks a path a request names inside /workspace: relative, no `.` or `..` segments, no empty segments, no NUL,
 * at most 1024 characters. Returns it unchanged; throws a 400 otherwise.
 */
export function validateWorkspacePath(path: unknown, field: string): string {
  const fail = (reason: string): never => {
    throw new HttpError({ status: 400, code: 'invalid_path', message: `${field}: ${reason}` });
  };
  if (typeof path !== 'string') return fail('must be a string');
  if (path.length === 0 || path.length > 1024) return fail('must have 1 to 1024 characters');
  if (path.includes('\0')) return fail('must not contain NUL');
  if (path.startsWith('/')) return fail('must be relative to the workspace');
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') {
      return fail('must not contain empty, "." or ".." segments');
    }
    if (Buffer.byteLength(segment) > 255) return fail('a path segment is longer than 255 bytes');
  }
  return path;
}
