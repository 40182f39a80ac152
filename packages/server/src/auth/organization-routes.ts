import {
  addMemberBody,
  createdOrganizationSchema,
  createOrganizationBody,
  invitedSchema,
  memberListSchema,
  memberParams,
  memberRoleBody,
  memberSchema,
  organizationListSchema,
  organizationParams,
} from '@toolbus/api-schema';
import type { RouteRegistry } from '../http/route-registry.ts';
import type { OrganizationService } from './organization-service.ts';

const self = { kind: 'user', scope: 'chat' } as const;

/**
 * Registers organisations (deployment admins create them; everyone lists their own) and their members (each
 * organisation's admins, or a deployment admin, manage them).
 */
export function registerOrganizationRoutes(
  registry: RouteRegistry,
  organizations: OrganizationService,
): void {
  registry.add(
    {
      method: 'post',
      path: '/v1/admin/organizations',
      operationId: 'createOrganization',
      summary: 'Create an organisation',
      tag: 'admin',
      access: { kind: 'admin' },
      body: createOrganizationBody,
      responses: {
        201: { description: 'The organisation', schema: createdOrganizationSchema },
      },
    },
    async ({ principal, body, context }) => context.json(await organizations.create(principal, body), 201),
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/organizations',
      operationId: 'listOrganizations',
      summary: 'The organisations you belong to, with your role (deployment admins: all)',
      tag: 'organizations',
      access: self,
      responses: {
        200: {
          description: 'The organisations',
          schema: organizationListSchema,
        },
      },
    },
    async ({ principal, context }) => context.json({ organizations: await organizations.list(principal) }),
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/organizations/{organizationId}/members',
      operationId: 'listOrganizationMembers',
      summary: "An organisation's members (its admins only)",
      tag: 'organizations',
      access: self,
      params: organizationParams,
      responses: {
        200: { description: 'The members', schema: memberListSchema },
      },
    },
    async ({ principal, params, context }) =>
      context.json({ members: await organizations.listMembers(principal, params.organizationId) }),
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/organizations/{organizationId}/members',
      operationId: 'addOrganizationMember',
      summary:
        "Add a member by email or change a member's role. A deployment admin adds directly (the user is created when new): 201. An organisation admin invites anyone not yet a member: 202, the same answer whether or not the email has an account; the account joins when it accepts",
      tag: 'organizations',
      access: self,
      params: organizationParams,
      body: addMemberBody,
      responses: {
        201: { description: 'The member', schema: memberSchema },
        202: {
          description: 'Invited',
          schema: invitedSchema,
        },
      },
    },
    async ({ principal, params, body, context }) => {
      const added = await organizations.addMember(principal, params.organizationId, body);
      return added.status === 'member'
        ? context.json(added.member, 201)
        : context.json({ invited: true, email: added.email, role: added.role }, 202);
    },
  );
  registry.add(
    {
      method: 'patch',
      path: '/v1/organizations/{organizationId}/members/{userId}',
      operationId: 'setOrganizationMemberRole',
      summary: "Change a member's role",
      tag: 'organizations',
      access: self,
      params: memberParams,
      body: memberRoleBody,
      responses: { 200: { description: 'The member', schema: memberSchema } },
    },
    async ({ principal, params, body, context }) =>
      context.json(
        await organizations.setMemberRole(principal, params.organizationId, params.userId, body.role),
      ),
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/organizations/{organizationId}/members/{userId}',
      operationId: 'removeOrganizationMember',
      summary: 'Remove a member from the organisation',
      tag: 'organizations',
      access: self,
      params: memberParams,
      responses: { 204: { description: 'Removed' } },
    },
    async ({ principal, params, context }) => {
      await organizations.removeMember(principal, params.organizationId, params.userId);
      return context.body(null, 204);
    },
  );
}
