/** One memory the memory tool saved for a user. */
export interface Memory {
  readonly id: string;
  readonly userId: string;
  /** The organisation the memory belongs to (its user acted in it). */
  readonly organizationId: string;
  readonly text: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What adding a memory takes. */
export interface NewMemory {
  readonly userId: string;
  /** Default the default organisation. */
  readonly organizationId?: string;
  readonly text: string;
  /** When the user already has this many in the organisation, the oldest are deleted first. Absent: no cap. */
  readonly maxPerUser?: number;
}
