import type {
  Organization,
  OrganizationInvitation,
  OrganizationMember,
  OrganizationRole,
  OrganizationStore,
} from '@toolbus/storage';
import { isoTime, notFound, type PostgresContext, withConstraintErrors } from './postgres-context.ts';

interface OrganizationRow {
  id: string;
  name: string;
  created_at: Date;
}

interface MemberRow {
  organization_id: string;
  user_id: string;
  role: OrganizationRole;
  created_at: Date;
}

interface InvitationRow {
  id: string;
  organization_id: string;
  email: string;
  role: OrganizationRole;
  invited_by: string | null;
  created_at: Date;
}

const organizationColumns = 'id, name, created_at';
const invitationColumns = 'id, organization_id, email, role, invited_by, created_at';
const memberColumns = 'organization_id, user_id, role, created_at';

/** Organisations and memberships over PostgreSQL. */
export function createPostgresOrganizationStore(context: PostgresContext): OrganizationStore {
  const { pool } = context;
  const read = async (id: string): Promise<Organization | undefined> => {
    const { rows } = await pool.query<OrganizationRow>(
      `SELECT ${organizationColumns} FROM organizations WHERE id = $1`,
      [id],
    );
    return rows[0] && toOrganization(rows[0]);
  };
  const member = async (organizationId: string, userId: string): Promise<OrganizationMember | undefined> => {
    const { rows } = await pool.query<MemberRow>(
      `SELECT ${memberColumns} FROM organization_members WHERE organization_id = $1 AND user_id = $2`,
      [organizationId, userId],
    );
    return rows[0] && toMember(rows[0]);
  };
  return {
    async create(organization) {
      const { rows } = await withConstraintErrors('Creating an organisation', () =>
        pool.query<OrganizationRow>(
          `INSERT INTO organizations (id, name, created_at) VALUES ($1, $2, $3) RETURNING ${organizationColumns}`,
          [context.newId(), organization.name, context.now()],
        ),
      );
      return toOrganization(rows[0]!);
    },
    get: read,
    async list() {
      const { rows } = await pool.query<OrganizationRow>(
        `SELECT ${organizationColumns} FROM organizations ORDER BY created_at, ordinal`,
      );
      return rows.map(toOrganization);
    },
    async setMember(input) {
      if (!(await read(input.organizationId))) throw notFound('Organisation', input.organizationId);
      const user = await pool.query('SELECT 1 FROM users WHERE id = $1', [input.userId]);
      if (user.rowCount === 0) throw notFound('User', input.userId);
      const { rows } = await withConstraintErrors('Setting a member', () =>
        pool.query<MemberRow>(
          `INSERT INTO organization_members (organization_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (organization_id, user_id) DO UPDATE SET role = excluded.role
           RETURNING ${memberColumns}`,
          [input.organizationId, input.userId, input.role, context.now()],
        ),
      );
      return toMember(rows[0]!);
    },
    async getMember({ organizationId, userId }) {
      return member(organizationId, userId);
    },
    async listMembers(organizationId) {
      const { rows } = await pool.query<MemberRow>(
        `SELECT ${memberColumns} FROM organization_members WHERE organization_id = $1 ORDER BY created_at, ordinal`,
        [organizationId],
      );
      return rows.map(toMember);
    },
    async listMemberships(userId) {
      const { rows } = await pool.query<MemberRow>(
        `SELECT ${memberColumns} FROM organization_members WHERE user_id = $1 ORDER BY created_at, ordinal`,
        [userId],
      );
      return rows.map(toMember);
    },
    async removeMember({ organizationId, userId }) {
      const result = await pool.query(
        'DELETE FROM organization_members WHERE organization_id = $1 AND user_id = $2',
        [organizationId, userId],
      );
      return (result.rowCount ?? 0) > 0;
    },
    async invite(invitation) {
      if (!(await read(invitation.organizationId))) throw notFound('organisation', invitation.organizationId);
      const { rows } = await withConstraintErrors('Inviting to an organisation', () =>
        pool.query<InvitationRow>(
          `INSERT INTO organization_invitations (${invitationColumns}) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (organization_id, email) DO UPDATE SET role = excluded.role, invited_by = excluded.invited_by
           RETURNING ${invitationColumns}`,
          [
            context.newId(),
            invitation.organizationId,
            invitation.email.toLowerCase(),
            invitation.role,
            invitation.invitedBy,
            context.now(),
          ],
        ),
      );
      return toInvitation(rows[0]!);
    },
    async listInvitations(email) {
      const { rows } = await pool.query<InvitationRow>(
        `SELECT ${invitationColumns} FROM organization_invitations WHERE email = $1 ORDER BY created_at, id`,
        [email.toLowerCase()],
      );
      return rows.map(toInvitation);
    },
    async takeInvitation(id) {
      const { rows } = await pool.query<InvitationRow>(
        `DELETE FROM organization_invitations WHERE id = $1 RETURNING ${invitationColumns}`,
        [id],
      );
      return rows[0] && toInvitation(rows[0]);
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
    createdAt: isoTime(row.created_at),
  };
}

function toOrganization(row: OrganizationRow): Organization {
  return { id: row.id, name: row.name, createdAt: isoTime(row.created_at) };
}

function toMember(row: MemberRow): OrganizationMember {
  return {
    organizationId: row.organization_id,
    userId: row.user_id,
    role: row.role,
    createdAt: isoTime(row.created_at),
  };
}
