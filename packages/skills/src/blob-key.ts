const keyPattern = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/;

/**
 * Throws a TypeError for a key no blob store takes: every store checks keys alike, so a key that the filesystem
 * store would refuse (one that could leave its folder) is refused by the SQL store too.
 */
export function checkBlobKey(key: string): string {
  if (
    !keyPattern.test(key) ||
    key.split('/').some((segment) => segment === '..' || segment.startsWith('.'))
  ) {
    throw new TypeError(`invalid blob key ${JSON.stringify(key)}`);
  }
  return key;
}
