import { invitationListSchema, invitationParams, membershipSchema } from '@toolbus/api-schema';
import type { OrganizationRole, Storage } from '@toolbus/storage';
import type { Principal } from '../http/principal.ts';
import type { RouteRegistry } from '../http/route-registry.ts';
import { notFoundError } from '../http/server-error.ts';

const self = { kind: 'user', scope: 'chat' } as const;

/** An invitation as its invitee sees it. */
interface InvitationView {
  readonly id: string;
  readonly organizationId: string;
  readonly organizationName: string;
  readonly role: OrganizationRole;
  readonly createdAt: string;
}

/**
 * The invitations of the caller's email: an organisation admin invites (see `OrganizationService.addMember`), the
 * invitee lists, accepts (becoming a member) or declines. Only the account of the invited email sees or answers
 * an invitation; any other gets `not_found`.
 */
export function registerInvitationRoutes(registry: RouteRegistry, storage: Storage): void {
  const mine = async (principal: Principal): Promise<InvitationView[]> => {
    const views: InvitationView[] = [];
    for (const invitation of await storage.organizations.listInvitations(principal.user.email)) {
      const organization = await storage.organizations.get(invitation.organizationId);
      if (organization) {
        views.push({
          id: invitation.id,
          organizationId: organization.id,
          organizationName: organization.name,
          role: invitation.role,
          createdAt: invitation.createdAt,
        });
      }
    }
    return views;
  };
  const take = async (principal: Principal, invitationId: string) => {
    if (!(await mine(principal)).some((invitation) => invitation.id === invitationId)) {
      throw notFoundError('path.invitationId', `no invitation ${JSON.stringify(invitationId)} for you.`);
    }
    const invitation = await storage.organizations.takeInvitation(invitationId);
    if (!invitation) {
      throw notFoundError(
        'path.invitationId',
        `the invitation ${JSON.stringify(invitationId)} was already answered.`,
      );
    }
    return invitation;
  };
  registry.add(
    {
      method: 'get',
      path: '/v1/invitations',
      operationId: 'listInvitations',
      summary: 'Invitations to organisations for your email',
      tag: 'organizations',
      access: self,
      responses: {
        200: { description: 'The invitations', schema: invitationListSchema },
      },
    },
    async ({ principal, context }) => context.json({ invitations: await mine(principal) }),
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/invitations/{invitationId}/accept',
      operationId: 'acceptInvitation',
      summary: 'Accept an invitation: you become a member of its organisation with its role',
      tag: 'organizations',
      access: self,
      params: invitationParams,
      responses: {
        200: {
          description: 'Now a member',
          schema: membershipSchema,
        },
      },
    },
    async ({ principal, params, context }) => {
      const invitation = await take(principal, params.invitationId);
      const member = await storage.organizations.setMember({
        organizationId: invitation.organizationId,
        userId: principal.user.id,
        role: invitation.role,
      });
      return context.json({ organizationId: member.organizationId, role: member.role });
    },
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/invitations/{invitationId}',
      operationId: 'declineInvitation',
      summary: 'Decline an invitation',
      tag: 'organizations',
      access: self,
      params: invitationParams,
      responses: { 204: { description: 'Declined' } },
    },
    async ({ principal, params, context }) => {
      await take(principal, params.invitationId);
      return context.body(null, 204);
    },
  );
}
