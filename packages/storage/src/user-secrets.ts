/** What is sealed per user of an owner, by kind: the owner's id and the value. */
export interface UserSecretKinds {
  /** The user's OAuth state for an MCP server (the MCP client's token store's JSON, opaque to storage). */
  readonly mcpOAuth: { readonly ownerId: string; readonly value: Readonly<Record<string, unknown>> };
  /** The user's values for an MCP server's header template (`{api_key}` → the user's key). */
  readonly mcpHeaderValues: { readonly ownerId: string; readonly value: Readonly<Record<string, string>> };
  /** The user's values for a connected app's `{{user.NAME}}` placeholders (owned by the app's numeric id). */
  readonly connectedAppValues: { readonly ownerId: number; readonly value: Readonly<Record<string, string>> };
}

export type UserSecretKind = keyof UserSecretKinds;

/** Which value: its kind, its owner (the MCP server or connected app) and its user. */
export interface UserSecretKey<Kind extends UserSecretKind> {
  readonly kind: Kind;
  readonly ownerId: UserSecretKinds[Kind]['ownerId'];
  readonly userId: string;
}

/**
 * Secrets of one user of one owner: sealed, never logged or shown back, deleted with their owner or their user. One
 * store for every kind, so each is read, written and forgotten alike.
 */
export interface UserSecretStore {
  /** Exactly that user's value; never another user's. */
  get<Kind extends UserSecretKind>(
    key: UserSecretKey<Kind>,
  ): Promise<UserSecretKinds[Kind]['value'] | undefined>;
  /** Stores (replacing) that user's value; `invalid_input` when the owner or the user does not exist. */
  set<Kind extends UserSecretKind>(
    key: UserSecretKey<Kind> & { readonly value: UserSecretKinds[Kind]['value'] },
  ): Promise<void>;
  /** Forgets that user's value; false when there was none. */
  delete<Kind extends UserSecretKind>(key: UserSecretKey<Kind>): Promise<boolean>;
}
