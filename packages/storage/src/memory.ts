/** One memory the memory tool saved for a user. */
export interface Memory {
  readonly id: string;
  readonly userId: string;
  readonly text: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What adding a memory takes. */
export interface NewMemory {
  readonly userId: string;
  readonly text: string;
  /** When the user already has this many, the oldest are deleted first. Absent: no cap. */
  readonly maxPerUser?: number;
}
