import { StorageError } from '../storage-error.ts';

/** The largest page of packets one `listPackets` call returns by default. */
export const defaultPacketPageSize = 10_000;

/** Refuses a packet cursor that is not a non-negative integer, or a page size that is not a positive one. */
export function checkPacketCursor(options: { readonly after: number; readonly limit: number }): void {
  if (!Number.isInteger(options.after) || options.after < 0) {
    throw new StorageError({ code: 'invalid_input', message: 'after must be a non-negative integer.' });
  }
  if (!Number.isInteger(options.limit) || options.limit < 1) {
    throw new StorageError({ code: 'invalid_input', message: 'limit must be a positive integer.' });
  }
}
