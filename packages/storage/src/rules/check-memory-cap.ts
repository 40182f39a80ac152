import { StorageError } from '../storage-error.ts';

/** Refuses a per-user memory cap that is not a positive integer (absent means no cap). */
export function checkMemoryCap(maxPerUser: number | undefined): void {
  if (maxPerUser !== undefined && !(Number.isInteger(maxPerUser) && maxPerUser > 0)) {
    throw new StorageError({ code: 'invalid_input', message: 'maxPerUser must be a positive integer.' });
  }
}
