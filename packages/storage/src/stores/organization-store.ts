import type { OrganizationStore } from '../organization.ts';
import { camelColumns } from '../sql/camel-columns.ts';
import { deleteRows, notFound, type StoreContext, withStoreConstraintErrors } from '../sql/store-context.ts';

const organizationColumns = camelColumns('id', 'name', 'created_at');
const memberColumns = camelColumns('organization_id', 'user_id', 'role', 'created_at');
const invitationColumns = camelColumns('id', 'organization_id', 'email', 'role', 'invited_by', 'created_at');

export function createOrganizationStore(context: StoreContext): OrganizationStore {
  const { db } = context;
  const organizations = () => db.selectFrom('organizations').select(organizationColumns);
  // The rows a write names must exist: `not_found`, where the foreign key alone would say `invalid_input`.
  const mustExist = async (table: 'organizations' | 'users', id: string) => {
    const found = await db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst();
    if (found === undefined) throw notFound(table === 'users' ? 'User' : 'Organisation', id);
  };
  return withStoreConstraintErrors('organizations', {
    async create(organization) {
      return db
        .insertInto('organizations')
        .values({ id: context.newId(), name: organization.name, created_at: context.now() })
        .returning(organizationColumns)
        .executeTakeFirstOrThrow();
    },
    async get(id) {
      return organizations().where('id', '=', id).executeTakeFirst();
    },
    async list() {
      return organizations().orderBy(context.oldestFirst).execute();
    },
    async setMember(member) {
      const { organizationId, userId, role } = member;
      await mustExist('organizations', organizationId);
      await mustExist('users', userId);
      return db
        .insertInto('organization_members')
        .values({ organization_id: organizationId, user_id: userId, role, created_at: context.now() })
        .onConflict((conflict) => conflict.columns(['organization_id', 'user_id']).doUpdateSet({ role }))
        .returning(memberColumns)
        .executeTakeFirstOrThrow();
    },
    async members({ organizationId, userId }) {
      return db
        .selectFrom('organization_members')
        .select(memberColumns)
        .$if(organizationId !== undefined, (query) => query.where('organization_id', '=', organizationId!))
        .$if(userId !== undefined, (query) => query.where('user_id', '=', userId!))
        .orderBy(context.oldestFirst)
        .execute();
    },
    async removeMember({ organizationId, userId }) {
      return deleteRows(db, 'organization_members', { organization_id: organizationId, user_id: userId });
    },
    async invite(invitation) {
      const { organizationId, role, invitedBy } = invitation;
      await mustExist('organizations', organizationId);
      return db
        .insertInto('organization_invitations')
        .values({
          id: context.newId(),
          organization_id: organizationId,
          email: invitation.email.toLowerCase(),
          role,
          invited_by: invitedBy,
          created_at: context.now(),
        })
        .onConflict((conflict) =>
          conflict.columns(['organization_id', 'email']).doUpdateSet({ role, invited_by: invitedBy }),
        )
        .returning(invitationColumns)
        .executeTakeFirstOrThrow();
    },
    async listInvitations(email) {
      return db
        .selectFrom('organization_invitations')
        .select(invitationColumns)
        .where('email', '=', email.toLowerCase())
        .orderBy(context.oldestFirst)
        .execute();
    },
    async takeInvitation(id) {
      return db
        .deleteFrom('organization_invitations')
        .where('id', '=', id)
        .returning(invitationColumns)
        .executeTakeFirst();
    },
  });
}
