import type { Creating, StoredRow } from './sql/camel-columns.ts';

/**
 * How search is forced for a persona or a user: `auto` leaves the persona's tools alone, `enabled` adds internal
 * search when the persona lacks it, `disabled` removes it.
 */
export type SearchUsage = 'auto' | 'enabled' | 'disabled';

/** What a user may do: `admin` manages the library (personas, tools, skills, documents, settings, users). */
export type UserRole = 'admin' | 'user';

/** A user's own settings. */
export interface UserSettings {
  /** The memory tool is injected into every assembly for this user, whatever the persona says. */
  readonly memoryToolEnabled: boolean;
  readonly searchUsage: SearchUsage;
}

/** A user as stored: the row, its settings columns read as {@link UserSettings}. */
export type User = Omit<StoredRow<'users'>, keyof UserSettings> & { readonly settings: UserSettings };

/** What creating a user takes; the role defaults to `user`, settings to memory off and search `auto`. */
export type NewUser = Creating<User, 'email', 'role'> & {
  readonly name?: string;
  /** The organisation the user joins (as `admin` when the role is, else `member`); default the default one. */
  readonly organizationId?: string;
  readonly settings?: Partial<UserSettings>;
};
