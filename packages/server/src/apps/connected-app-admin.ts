import { compileAnchoredPattern } from '@toolbus/egress';
import type { ActionPolicy } from '@toolbus/spec';
import type { ConnectedAppActionRecord, ConnectedAppRecord, Storage } from '@toolbus/storage';
import { checkHeaderInput } from '../http/header-input.ts';
import { ServerError } from '../http/server-error.ts';

/** Who acts on connected apps: a user in one organisation, who may also manage its shared apps when an admin. */
export interface ConnectedAppActor {
  readonly userId: string;
  /** The organisation acted in: only its apps are seen, used and changed. */
  readonly organizationId: string;
  readonly isAdmin: boolean;
}

/** A connected app as shown to its users: names of headers and values, never their values. */
export interface ConnectedAppSummary {
  readonly id: number;
  readonly name: string;
  /** True for an app of the whole organisation (every user sees it; only admins change it). */
  readonly shared: boolean;
  readonly urlPatterns: readonly string[];
  readonly actions: readonly ConnectedAppActionRecord[];
  readonly headerNames: readonly string[];
  /** Names of the organisation values (`{{org.NAME}}`). */
  readonly organizationValueNames: readonly string[];
  /** Names of the caller's own values (`{{user.NAME}}`). */
  readonly userValueNames: readonly string[];
  readonly enabled: boolean;
  readonly createdAt: string;
}

/** What connecting an app takes. Header values and values are secrets: stored encrypted, never returned. */
export interface ConnectedAppInput {
  readonly name: string;
  readonly urlPatterns: readonly string[];
  /** Header templates (`Authorization: Bearer {{user.token}}`). */
  readonly headers: Readonly<Record<string, string>>;
  readonly actions?: readonly ConnectedAppActionRecord[];
  /** The policy of every request no action matches (default ASK). */
  readonly defaultPolicy?: ActionPolicy;
  readonly organizationValues?: Readonly<Record<string, string>>;
  /** The caller's own values for `{{user.NAME}}`. */
  readonly userValues?: Readonly<Record<string, string>>;
  /** The organisation's app (admins only) instead of the caller's own. */
  readonly shared?: boolean;
}

/** The name of the catch-all action every app gets, carrying its default policy. */
export const OTHER_ACTION_NAME = 'other';

/**
 * The operations on connected apps, shared by `toolbus apps` and the server's routes so both check the same way:
 * URL patterns must compile, an organisation app is an admin's, a user sees and changes only their own apps and
 * the organisation's (and only their own values of those), and nothing read back holds a secret value.
 */
export class ConnectedAppAdmin {
  readonly #storage: Storage;

  constructor(storage: Storage) {
    this.#storage = storage;
  }

  /** The apps the actor can use: their own and the organisation's, lowest id first. */
  async list(actor: ConnectedAppActor): Promise<ConnectedAppSummary[]> {
    const records = await this.#storage.connectedApps.list({
      userId: actor.userId,
      organizationId: actor.organizationId,
    });
    return Promise.all(
      records.filter((record) => visibleTo(record, actor)).map((record) => this.#summary(record, actor)),
    );
  }

  /** One visible app by id or by name; `not_found` otherwise (another user's app is not found either). */
  async find(actor: ConnectedAppActor, idOrName: number | string): Promise<ConnectedAppSummary> {
    const record = await this.#visible(actor, idOrName);
    return this.#summary(record, actor);
  }

  /** Connects an app (validated before anything is stored) and stores the caller's values for it. */
  async add(actor: ConnectedAppActor, input: ConnectedAppInput): Promise<ConnectedAppSummary> {
    validateInput(input);
    if (input.shared === true && !actor.isAdmin) {
      throw new ServerError({
        code: 'forbidden',
        field: 'body.shared',
        message: 'body.shared: only an administrator can connect an app for the whole organisation.',
      });
    }
    const actions: ConnectedAppActionRecord[] = [
      ...(input.actions ?? []),
      { name: OTHER_ACTION_NAME, pathPattern: '/.*', policy: input.defaultPolicy ?? 'ASK' },
    ];
    const created = await this.#storage.connectedApps.create({
      userId: input.shared === true ? null : actor.userId,
      organizationId: actor.organizationId,
      name: input.name,
      urlPatterns: input.urlPatterns,
      actions,
      headers: input.headers,
      organizationValues: input.organizationValues ?? {},
    });
    if (input.userValues !== undefined && Object.keys(input.userValues).length > 0) {
      await this.#storage.userSecrets.set({
        kind: 'connectedAppValues',
        ownerId: created.id,
        userId: actor.userId,
        value: input.userValues,
      });
    }
    return this.#summary(created, actor);
  }

  /** Sets the caller's own values of a visible app (replacing the earlier ones). */
  async setUserValues(
    actor: ConnectedAppActor,
    idOrName: number | string,
    values: Readonly<Record<string, string>>,
  ): Promise<ConnectedAppSummary> {
    checkHeaderInput(values, 'body.values', { names: false });
    const record = await this.#visible(actor, idOrName);
    await this.#storage.userSecrets.set({
      kind: 'connectedAppValues',
      ownerId: record.id,
      userId: actor.userId,
      value: values,
    });
    return this.#summary(record, actor);
  }

  /** Removes the caller's own app, or an organisation app when the caller is an admin. */
  async remove(actor: ConnectedAppActor, idOrName: number | string): Promise<void> {
    const record = await this.#visible(actor, idOrName);
    if (record.userId === null && !actor.isAdmin) {
      throw new ServerError({
        code: 'forbidden',
        message: `The app ${record.name} belongs to the organisation; only an administrator can remove it.`,
      });
    }
    await this.#storage.connectedApps.delete(record.id);
  }

  async #visible(actor: ConnectedAppActor, idOrName: number | string): Promise<ConnectedAppRecord> {
    const records = await this.#storage.connectedApps.list({
      userId: actor.userId,
      organizationId: actor.organizationId,
    });
    const found = records.find(
      (record) =>
        visibleTo(record, actor) &&
        (typeof idOrName === 'number' ? record.id === idOrName : record.name === idOrName),
    );
    if (found === undefined) {
      throw new ServerError({ code: 'not_found', message: `No connected app ${JSON.stringify(idOrName)}.` });
    }
    return found;
  }

  async #summary(record: ConnectedAppRecord, actor: ConnectedAppActor): Promise<ConnectedAppSummary> {
    const userValues = await this.#storage.userSecrets.get({
      kind: 'connectedAppValues',
      ownerId: record.id,
      userId: actor.userId,
    });
    return {
      id: record.id,
      name: record.name,
      shared: record.userId === null,
      urlPatterns: record.urlPatterns,
      actions: record.actions,
      headerNames: Object.keys(record.headers),
      organizationValueNames: Object.keys(record.organizationValues),
      userValueNames: Object.keys(userValues ?? {}),
      enabled: record.enabled,
      createdAt: record.createdAt,
    };
  }
}

function visibleTo(record: ConnectedAppRecord, actor: ConnectedAppActor): boolean {
  return (
    record.organizationId === actor.organizationId &&
    (record.userId === null || record.userId === actor.userId)
  );
}

function invalid(field: string, message: string): ServerError {
  return new ServerError({ code: 'invalid_request', field, message: `${field}: ${message}` });
}

function validateInput(input: ConnectedAppInput): void {
  if (input.name.trim() === '') throw invalid('body.name', 'give the app a name.');
  if (input.urlPatterns.length === 0) throw invalid('body.urlPatterns', 'give at least one URL pattern.');
  if (Object.keys(input.headers).length === 0) throw invalid('body.headers', 'give at least one header.');
  for (const [index, pattern] of input.urlPatterns.entries()) compiles(pattern, `body.urlPatterns.${index}`);
  for (const [index, action] of (input.actions ?? []).entries()) {
    compiles(action.pathPattern, `body.actions.${index}.pathPattern`);
  }
  // Templates, and the values filled into them, all end up in a header.
  checkHeaderInput(input.headers, 'body.headers');
  checkHeaderInput(input.organizationValues, 'body.organizationValues', { names: false });
  checkHeaderInput(input.userValues, 'body.userValues', { names: false });
}

/** Refuses a pattern the proxy could not use, naming it: the same compilation the proxy's matcher applies. */
function compiles(pattern: string, field: string): void {
  if (compileAnchoredPattern(pattern) !== null) return;
  let why = '';
  try {
    new RegExp(`^(?:${pattern})$`, 'u');
  } catch (error) {
    why = error instanceof Error ? ` (${error.message.split(': ').at(-1)})` : '';
  }
  throw invalid(field, `${JSON.stringify(pattern.slice(0, 200))} is not a valid regular expression${why}.`);
}
