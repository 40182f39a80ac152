import type {
  Organization,
  OrganizationInvitation,
  OrganizationMember,
  OrganizationRole,
  OrganizationStore,
} from '../organization.ts';
import { notFound, type SqliteContext, withConstraintErrors } from './sqlite-context.ts';

interface OrganizationRow {
  id: string;
  name: string;
  created_at: string;
}

interface MemberRow {
  organization_id: string;
  user_id: string;
  role: OrganizationRole;
  created_at: string;
}

interface InvitationRow {
  id: string;
  organization_id: string;
  email: string;
  role: OrganizationRole;
  invited_by: string | null;
  created_at: string;
}

/** Organisations and memberships over SQLite. */
export function createSqliteOrganizationStore(context: SqliteContext): OrganizationStore {
  const { database } = context;
  const insert = database.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)');
  const selectById = database.prepare('SELECT * FROM organizations WHERE id = ?');
  const selectAll = database.prepare('SELECT * FROM organizations ORDER BY created_at, rowid');
  const selectUser = database.prepare('SELECT 1 FROM users WHERE id = ?');
  const upsertMember = database.prepare(
    `INSERT INTO organization_members (organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (organization_id, user_id) DO UPDATE SET role = excluded.role`,
  );
  const selectMember = database.prepare(
    'SELECT * FROM organization_members WHERE organization_id = ? AND user_id = ?',
  );
  const selectMembers = database.prepare(
    'SELECT * FROM organization_members WHERE organization_id = ? ORDER BY created_at, rowid',
  );
  const selectMemberships = database.prepare(
    'SELECT * FROM organization_members WHERE user_id = ? ORDER BY created_at, rowid',
  );
  const deleteMember = database.prepare(
    'DELETE FROM organization_members WHERE organization_id = ? AND user_id = ?',
  );
  const upsertInvitation = database.prepare(
    `INSERT INTO organization_invitations (id, organization_id, email, role, invited_by, created_at)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (organization_id, email) DO UPDATE SET role = excluded.role, invited_by = excluded.invited_by
     RETURNING *`,
  );
  const selectInvitations = database.prepare(
    'SELECT * FROM organization_invitations WHERE email = ? ORDER BY created_at, rowid',
  );
  const takeInvitation = database.prepare('DELETE FROM organization_invitations WHERE id = ? RETURNING *');
  const read = (id: string): Organization | undefined => {
    const row = selectById.get(id) as OrganizationRow | undefined;
    return row && toOrganization(row);
  };
  const member = (organizationId: string, userId: string): OrganizationMember | undefined => {
    const row = selectMember.get(organizationId, userId) as MemberRow | undefined;
    return row && toMember(row);
  };
  return {
    async create(organization) {
      const id = context.newId();
      withConstraintErrors('Creating an organisation', () =>
        insert.run(id, organization.name, context.now()),
      );
      return read(id)!;
    },
    async get(id) {
      return read(id);
    },
    async list() {
      return (selectAll.all() as unknown as OrganizationRow[]).map(toOrganization);
    },
    async setMember(input) {
      if (!read(input.organizationId)) throw notFound('Organisation', input.organizationId);
      if (!selectUser.get(input.userId)) throw notFound('User', input.userId);
      withConstraintErrors('Setting a member', () =>
        upsertMember.run(input.organizationId, input.userId, input.role, context.now()),
      );
      return member(input.organizationId, input.userId)!;
    },
    async getMember({ organizationId, userId }) {
      return member(organizationId, userId);
    },
    async listMembers(organizationId) {
      return (selectMembers.all(organizationId) as unknown as MemberRow[]).map(toMember);
    },
    async listMemberships(userId) {
      return (selectMemberships.all(userId) as unknown as MemberRow[]).map(toMember);
    },
    async removeMember({ organizationId, userId }) {
      return Number(deleteMember.run(organizationId, userId).changes) > 0;
    },
    async invite(invitation) {
      if (!read(invitation.organizationId)) throw notFound('organisation', invitation.organizationId);
      const row = withConstraintErrors('Inviting to an organisation', () =>
        upsertInvitation.get(
          context.newId(),
          invitation.organizationId,
          invitation.email.toLowerCase(),
          invitation.role,
          invitation.invitedBy,
          context.now(),
        ),
      ) as unknown as InvitationRow;
      return toInvitation(row);
    },
    async listInvitations(email) {
      return (selectInvitations.all(email.toLowerCase()) as unknown as InvitationRow[]).map(toInvitation);
    },
    async takeInvitation(id) {
      const row = takeInvitation.get(id) as InvitationRow | undefined;
      return row && toInvitation(row);
    },
  };
}

function toInvitation(row: InvitationRow): OrganizationInvitation {
  return {
    id: row.id,
    organizationId: row.organization_id,
    email: row.email,
    role: row.role,
    invitedBy: row.invited_by,
    createdAt: row.created_at,
  };
}

function toOrganization(row: OrganizationRow): Organization {
  return { id: row.id, name: row.name, createdAt: row.created_at };
}

function toMember(row: MemberRow): OrganizationMember {
  return {
    organizationId: row.organization_id,
    userId: row.user_id,
    role: row.role,
    createdAt: row.created_at,
  };
}
