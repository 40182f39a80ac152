import type { OrganizationMember, OrganizationStore } from '../organization.ts';
import { changed, notFound, type StoreContext, withConstraintErrors } from '../sql/store-context.ts';

const organizationColumns = ['id', 'name', 'created_at as createdAt'] as const;
const memberColumns = [
  'organization_id as organizationId',
  'user_id as userId',
  'role',
  'created_at as createdAt',
] as const;

/** Organisations and memberships. */
export function createOrganizationStore(context: StoreContext): OrganizationStore {
  const { db } = context;
  const members = () =>
    db
      .selectFrom('organization_members')
      .select(memberColumns)
      .$narrowType<Pick<OrganizationMember, 'role'>>()
      .orderBy('created_at')
      .orderBy(context.insertionOrder);
  return {
    async create(organization) {
      return withConstraintErrors('Creating an organisation', () =>
        db
          .insertInto('organizations')
          .values({ id: context.newId(), name: organization.name, created_at: context.now() })
          .returning(organizationColumns)
          .executeTakeFirstOrThrow(),
      );
    },
    async get(id) {
      return db
        .selectFrom('organizations')
        .select(organizationColumns)
        .where('id', '=', id)
        .executeTakeFirst();
    },
    async list() {
      return db
        .selectFrom('organizations')
        .select(organizationColumns)
        .orderBy('created_at')
        .orderBy(context.insertionOrder)
        .execute();
    },
    async setMember(member) {
      const { organizationId, userId, role } = member;
      const organization = await db
        .selectFrom('organizations')
        .select('id')
        .where('id', '=', organizationId)
        .executeTakeFirst();
      if (organization === undefined) throw notFound('Organisation', organizationId);
      const user = await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
      if (user === undefined) throw notFound('User', userId);
      const row = await withConstraintErrors('Setting a member', () =>
        db
          .insertInto('organization_members')
          .values({ organization_id: organizationId, user_id: userId, role, created_at: context.now() })
          .onConflict((conflict) => conflict.columns(['organization_id', 'user_id']).doUpdateSet({ role }))
          .returning(memberColumns)
          .executeTakeFirstOrThrow(),
      );
      return { ...row, role };
    },
    async getMember({ organizationId, userId }) {
      return members()
        .where('organization_id', '=', organizationId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
    },
    async listMembers(organizationId) {
      return members().where('organization_id', '=', organizationId).execute();
    },
    async listMemberships(userId) {
      return members().where('user_id', '=', userId).execute();
    },
    async removeMember({ organizationId, userId }) {
      const result = await db
        .deleteFrom('organization_members')
        .where('organization_id', '=', organizationId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return changed(result) > 0;
    },
  };
}
