import type { ActionPolicy } from '@toolbus/spec';
import type { Creating, StoredRow } from './sql/camel-columns.ts';

/** An action of a connected app, recognised by method and path (a regular expression matching the whole path). */
export interface ConnectedAppActionRecord {
  readonly name: string;
  readonly method?: string;
  readonly pathPattern: string;
  readonly policy: ActionPolicy;
}

/**
 * An external API connected for sandbox code, secrets decrypted (never log them): the egress proxy adds `headers`
 * (`{{org.NAME}}` and `{{user.NAME}}` filled in) to requests whose URL matches one of `urlPatterns`.
 */
export type ConnectedAppRecord = Pick<
  StoredRow<'connected_apps'>,
  'id' | 'userId' | 'organizationId' | 'name' | 'createdAt'
> & {
  readonly urlPatterns: readonly string[];
  readonly actions: readonly ConnectedAppActionRecord[];
  /** The header template (stored encrypted). */
  readonly headers: Readonly<Record<string, string>>;
  /** Values for `{{org.NAME}}` placeholders (stored encrypted). */
  readonly organizationValues: Readonly<Record<string, string>>;
  readonly enabled: boolean;
};

/** What creating a connected app takes; by default in the default organisation, with no actions or values, enabled. */
export type NewConnectedApp = Creating<
  ConnectedAppRecord,
  'userId' | 'name' | 'urlPatterns' | 'headers',
  'organizationId' | 'actions' | 'organizationValues' | 'enabled'
>;
