import type { StoredRow } from './sql/camel-columns.ts';

/** The id of the organisation every deployment has: existing rows and single-user setups belong to it. */
export const DEFAULT_ORGANIZATION_ID = 'default';

/** What a member may do in an organisation: `admin` manages its members; `member` uses it. */
export type OrganizationRole = 'admin' | 'member';

/** An organisation: a group of users whose chats, files and memories belong to it. */
export type Organization = StoredRow<'organizations'>;

/** One user's membership of one organisation. */
export type OrganizationMember = StoredRow<'organization_members'>;
type MemberKey = Pick<OrganizationMember, 'organizationId' | 'userId'>;

/** An invitation of an email to an organisation: its account (existing or later) joins only when it accepts. */
export type OrganizationInvitation = StoredRow<'organization_invitations'>;

/** Organisations and members (a user joins the one they are created in); deleting either ends the membership. */
export interface OrganizationStore {
  /** `conflict` when the name is taken. */
  create(organization: Pick<Organization, 'name'>): Promise<Organization>;
  get(id: string): Promise<Organization | undefined>;
  /** Every organisation, oldest first (the default one first). */
  list(): Promise<readonly Organization[]>;
  /** Adds a member or changes their role; `not_found` when the organisation or the user does not exist. */
  setMember(member: Omit<OrganizationMember, 'createdAt'>): Promise<OrganizationMember>;
  /** Memberships, oldest first: an organisation's, a user's, or (given both) that user's of that organisation. */
  members(of: Partial<MemberKey>): Promise<readonly OrganizationMember[]>;
  removeMember(member: MemberKey): Promise<boolean>;
  /** Invites an email (replacing an earlier invitation of it to this organisation); `not_found` for no organisation. */
  invite(invitation: Omit<OrganizationInvitation, 'id' | 'createdAt'>): Promise<OrganizationInvitation>;
  /** The pending invitations of an email (compared lower-cased), oldest first. */
  listInvitations(email: string): Promise<readonly OrganizationInvitation[]>;
  /** Deletes an invitation and returns it (accepted or declined), or undefined when there was none. */
  takeInvitation(id: string): Promise<OrganizationInvitation | undefined>;
}
