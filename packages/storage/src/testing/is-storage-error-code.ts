import { StorageError } from '../storage-error.ts';

/** An `assert.rejects` matcher: the error is a {@link StorageError} with this code. */
export function isStorageErrorCode(code: string): (error: unknown) => boolean {
  return (error: unknown) => StorageError.isInstance(error) && error.code === code;
}
