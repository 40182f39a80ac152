import type { Organization, OrganizationMember, OrganizationRole, OrganizationStore } from '@toolbus/storage';
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

const organizationColumns = 'id, name, created_at';
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
