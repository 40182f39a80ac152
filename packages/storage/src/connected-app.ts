import type { Creating } from './sql/camel-columns.ts';

/** What the egress proxy does with one action of a connected app. */
export type ConnectedAppPolicy = 'ALWAYS' | 'ASK' | 'DENY';

/** An action of a connected app, recognised by method and path (a regular expression matching the whole path). */
export interface ConnectedAppActionRecord {
  readonly name: string;
  readonly method?: string;
  readonly pathPattern: string;
  readonly policy: ConnectedAppPolicy;
}

/**
 * An external API connected for sandbox code, as stored, secrets decrypted (never log their values). The egress
 * proxy adds `headers` (a template whose `{{org.NAME}}` and `{{user.NAME}}` placeholders are filled from the
 * organisation's and the requesting user's values) to requests whose URL matches one of `urlPatterns`.
 */
export interface ConnectedAppRecord {
  /** Ascending: the lowest id wins when two apps' patterns match one URL. */
  readonly id: number;
  /** The owner; null for an app of the whole organisation (every user of it sees it). */
  readonly userId: string | null;
  /** The organisation the app belongs to: it is seen and used there only (a sandbox run of another gets nothing). */
  readonly organizationId: string;
  readonly name: string;
  readonly urlPatterns: readonly string[];
  readonly actions: readonly ConnectedAppActionRecord[];
  /** The header template (stored encrypted). */
  readonly headers: Readonly<Record<string, string>>;
  /** Values for `{{org.NAME}}` placeholders (stored encrypted). */
  readonly organizationValues: Readonly<Record<string, string>>;
  readonly enabled: boolean;
  readonly createdAt: string;
}

/** What creating a connected app takes; by default in the default organisation, with no actions or values, enabled. */
export type NewConnectedApp = Creating<
  ConnectedAppRecord,
  'userId' | 'name' | 'urlPatterns' | 'headers',
  'organizationId' | 'actions' | 'organizationValues' | 'enabled'
>;
