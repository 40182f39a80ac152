import { omitUndefined } from '@toolbus/spec';
import {
  DEFAULT_ORGANIZATION_ID,
  type Organization,
  type OrganizationMember,
  type OrganizationRole,
  type Storage,
  type User,
} from '@toolbus/storage';
import { actsAsDeploymentAdmin, ORGANIZATION_HEADER, type Principal } from '../http/principal.ts';
import { notFoundError, ServerError } from '../http/server-error.ts';

/** A member as an organisation admin sees them. */
export interface OrganizationMemberView {
  readonly userId: string;
  readonly email: string;
  readonly name: string | null;
  readonly role: OrganizationRole;
  readonly joinedAt: string;
}

/** What adding a member did: added them (or changed their role), or invited the email. */
export type MemberAddition =
  | { readonly status: 'member'; readonly member: OrganizationMemberView }
  | { readonly status: 'invited'; readonly email: string; readonly role: OrganizationRole };

/** An organisation the caller can see, with the caller's role in it. */
export interface OrganizationView extends Organization {
  /** `null` for a deployment admin who is not a member. */
  readonly role: OrganizationRole | null;
}

/**
 * The organisation a request acts in: the one its header names (a member's, or any for a deployment admin), else
 * the user's first. A user in none, or naming one they are not in, is refused (fail closed).
 */
export async function resolveOrganization(
  storage: Storage,
  user: User,
  requested: string | undefined,
): Promise<Principal['organization']> {
  const memberships = await storage.organizations.members({ userId: user.id });
  if (requested !== undefined) {
    const membership = memberships.find((member) => member.organizationId === requested);
    if (membership) return { id: membership.organizationId, role: membership.role };
    if (user.role === 'admin' && (await storage.organizations.get(requested))) {
      return { id: requested, role: 'admin' };
    }
    throw new ServerError({
      code: 'forbidden',
      field: `header.${ORGANIZATION_HEADER}`,
      message: `header.${ORGANIZATION_HEADER}: you are not a member of organisation ${JSON.stringify(requested)}.`,
    });
  }
  const first = memberships[0];
  if (first) return { id: first.organizationId, role: first.role };
  if (user.role === 'admin') return { id: DEFAULT_ORGANIZATION_ID, role: 'admin' };
  throw new ServerError({
    code: 'forbidden',
    message: 'You belong to no organisation; ask an admin to add you.',
  });
}

/**
 * Organisations and their members, administered per organisation: a deployment admin administers every
 * organisation and creates them; an organisation's admin administers only that one (its members, their roles,
 * users created into it). Anyone else gets `not_found` for an organisation they are not in (its existence is not
 * revealed) and `forbidden` for one they are only a member of.
 */
export class OrganizationService {
  readonly #storage: Storage;

  constructor(storage: Storage) {
    this.#storage = storage;
  }

  /** Creates an organisation (deployment admins only). */
  async create(principal: Principal, input: { name: string }): Promise<Organization> {
    if (!actsAsDeploymentAdmin(principal)) {
      throw new ServerError({ code: 'forbidden', message: 'Only deployment admins create organisations.' });
    }
    return this.#storage.organizations.create({ name: input.name });
  }

  /** The organisations the caller belongs to (a deployment admin: all of them). */
  async list(principal: Principal): Promise<readonly OrganizationView[]> {
    const memberships = new Map(
      (await this.#storage.organizations.members({ userId: principal.user.id })).map((member) => [
        member.organizationId,
        member.role,
      ]),
    );
    const all = await this.#storage.organizations.list();
    return all
      .filter((organization) => actsAsDeploymentAdmin(principal) || memberships.has(organization.id))
      .map((organization) => ({ ...organization, role: memberships.get(organization.id) ?? null }));
  }

  async listMembers(
    principal: Principal,
    organizationId: string,
  ): Promise<readonly OrganizationMemberView[]> {
    await this.#requireAdminOf(principal, organizationId);
    const members = await this.#storage.organizations.members({ organizationId });
    const views: OrganizationMemberView[] = [];
    for (const member of members) {
      const user = await this.#storage.users.get(member.userId);
      if (user) views.push(memberView(member, user));
    }
    return views;
  }

  /**
   * A deployment admin adds the user with this email (created when missing, into this organisation) with `role`, or
   * changes their role. An organisation admin changes the role of someone already a member; anyone else is invited
   * (the account joins when it accepts), and the answer is the same whether an account with that email exists, so
   * it reveals nothing about other organisations' users.
   */
  async addMember(
    principal: Principal,
    organizationId: string,
    input: { email: string; name?: string | undefined; role: OrganizationRole },
  ): Promise<MemberAddition> {
    await this.#requireAdminOf(principal, organizationId);
    const existing = await this.#storage.users.get({ email: input.email });
    const alreadyMember =
      existing && (await this.#storage.organizations.members({ organizationId, userId: existing.id }))[0];
    if (actsAsDeploymentAdmin(principal) || (existing && alreadyMember)) {
      const user =
        existing ??
        (await this.#storage.users.create({
          email: input.email,
          organizationId,
          ...omitUndefined({ name: input.name }),
        }));
      const member = await this.#storage.organizations.setMember({
        organizationId,
        userId: user.id,
        role: input.role,
      });
      return { status: 'member', member: memberView(member, user) };
    }
    await this.#storage.organizations.invite({
      organizationId,
      email: input.email,
      role: input.role,
      invitedBy: principal.user.id,
    });
    return { status: 'invited', email: input.email.toLowerCase(), role: input.role };
  }

  async setMemberRole(
    principal: Principal,
    organizationId: string,
    userId: string,
    role: OrganizationRole,
  ): Promise<OrganizationMemberView> {
    await this.#requireAdminOf(principal, organizationId);
    const user = await this.#member(organizationId, userId);
    const member = await this.#storage.organizations.setMember({ organizationId, userId, role });
    return memberView(member, user);
  }

  async removeMember(principal: Principal, organizationId: string, userId: string): Promise<void> {
    await this.#requireAdminOf(principal, organizationId);
    await this.#member(organizationId, userId);
    await this.#storage.organizations.removeMember({ organizationId, userId });
  }

  async #requireAdminOf(principal: Principal, organizationId: string): Promise<void> {
    const organization = await this.#storage.organizations.get(organizationId);
    if (actsAsDeploymentAdmin(principal) && organization) return;
    const own = organization
      ? (await this.#storage.organizations.members({ organizationId, userId: principal.user.id }))[0]
      : undefined;
    if (!organization || !own) {
      throw notFoundError(
        'path.organizationId',
        `no organisation ${JSON.stringify(organizationId)} of yours.`,
      );
    }
    if (own.role !== 'admin') {
      throw new ServerError({
        code: 'forbidden',
        field: 'path.organizationId',
        message: "path.organizationId: only this organisation's admins manage its members.",
      });
    }
  }

  async #member(organizationId: string, userId: string): Promise<User> {
    const member = (await this.#storage.organizations.members({ organizationId, userId }))[0];
    const user = member ? await this.#storage.users.get(userId) : undefined;
    if (!user) {
      throw notFoundError('path.userId', `no member ${JSON.stringify(userId)} in this organisation.`);
    }
    return user;
  }
}

function memberView(member: OrganizationMember, user: User): OrganizationMemberView {
  return {
    userId: user.id,
    email: user.email,
    name: user.name,
    role: member.role,
    joinedAt: member.createdAt,
  };
}
