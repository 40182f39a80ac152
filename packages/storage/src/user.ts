/**
 * How search is forced for a persona or a user: `auto` leaves the persona's tools alone, `enabled` adds internal
 * search when the persona lacks it, `disabled` removes it.
 */
export type SearchUsage = 'auto' | 'enabled' | 'disabled';

/** A user's own settings. */
export interface UserSettings {
  /** The memory tool is injected into every assembly for this user, whatever the persona says. */
  readonly memoryToolEnabled: boolean;
  readonly searchUsage: SearchUsage;
}

/** What a user may do: `admin` manages the library (personas, tools, skills, documents, settings, users). */
export type UserRole = 'admin' | 'user';

/** A user as stored. */
export interface User {
  readonly id: string;
  readonly email: string;
  readonly name: string | null;
  readonly role: UserRole;
  readonly settings: UserSettings;
  readonly createdAt: string;
}

/** What creating a user takes; settings default to memory off and search `auto`. */
export interface NewUser {
  readonly email: string;
  readonly name?: string;
  /** Default `user`. */
  readonly role?: UserRole;
  /**
   * The organisation the user joins (as `admin` when the role is, else `member`); default the default
   * organisation.
   */
  readonly organizationId?: string;
  readonly settings?: Partial<UserSettings>;
}
