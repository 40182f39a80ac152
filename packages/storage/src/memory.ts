import type { StoredRow } from './sql/camel-columns.ts';

/** One memory the memory tool saved for a user. */
export type Memory = StoredRow<'memories'>;

/** What adding a memory takes. */
export interface NewMemory {
  readonly userId: string;
  /** Default the default organisation. */
  readonly organizationId?: string;
  readonly text: string;
  /** When the user already has this many in the organisation, the oldest are deleted first. Absent: no cap. */
  readonly maxPerUser?: number;
}
