import type { Creating, StoredRow } from './sql/camel-columns.ts';

/** One memory the memory tool saved for a user. */
export type Memory = StoredRow<'memories'>;

/** What adding a memory takes; the organisation defaults to the default one. */
export type NewMemory = Creating<Memory, 'userId' | 'text', 'organizationId'> & {
  /** When the user already has this many in the organisation, the oldest are deleted first. Absent: no cap. */
  readonly maxPerUser?: number;
};
