import { StorageError } from '../storage-error.ts';

/** Refuses a count (a cap, a cursor, a page size) that is not an integer of at least `least`, naming it. */
export function checkCount(name: string, value: number, least: 0 | 1): void {
  if (!Number.isInteger(value) || value < least) {
    const which = least === 0 ? 'non-negative' : 'positive';
    throw new StorageError({ code: 'invalid_input', message: `${name} must be a ${which} integer.` });
  }
}
