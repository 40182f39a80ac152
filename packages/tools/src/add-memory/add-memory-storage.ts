/** A saved memory, as much of it as the memory tool needs. */
export interface StoredMemory {
  readonly id: string;
  readonly text: string;
}

/**
 * Where the memory tool reads and writes a user's memories. `@toolbus/storage`'s `Storage` fits as it is; the
 * optional `users` store lets the decision prompt name the user, so the model can keep the name out of the text.
 */
export interface AddMemoryStorage {
  readonly memories: {
    /** With `maxPerUser`, the oldest memories are deleted first to make room. */
    add(memory: {
      readonly userId: string;
      /** Absent: the store's default organisation. */
      readonly organizationId?: string;
      readonly text: string;
      readonly maxPerUser?: number;
    }): Promise<StoredMemory>;
    /** The user's memories in the organisation (absent: the store's default one), oldest first. */
    list(userId: string, organizationId?: string): Promise<readonly StoredMemory[]>;
    update(id: string, text: string): Promise<StoredMemory>;
  };
  readonly users?: { get(id: string): Promise<{ readonly name: string | null } | undefined> };
}
