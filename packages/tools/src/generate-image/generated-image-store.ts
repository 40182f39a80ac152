/** A stored image, as the tool reports it. */
export interface StoredImage {
  readonly id: string;
  readonly name: string;
  readonly mediaType: string;
  readonly sizeBytes: number;
}

/**
 * Where generated images go when the application passes its storage: `@toolbus/storage`'s `Storage` fits as it is
 * (images become uploaded files of the user, so read/serve rules for files apply to them).
 */
export interface GeneratedImageStorage {
  readonly files: {
    put(file: {
      readonly userId: string;
      /** Absent: the store's default organisation. */
      readonly organizationId?: string;
      readonly name: string;
      readonly mediaType: string;
      readonly content: Uint8Array;
    }): Promise<StoredImage>;
  };
}

/** Any other file store (an object store, a directory): saves one image, for the user when one is known. */
export interface GeneratedImageFileStore {
  save(image: {
    readonly userId?: string;
    readonly name: string;
    readonly mediaType: string;
    readonly content: Uint8Array;
  }): Promise<StoredImage>;
}
