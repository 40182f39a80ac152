import { z } from 'zod';

/** A member's role in an organisation. */
export const organizationRoleSchema = z.enum(['admin', 'member']);

/** An organisation, with the caller's role in it. */
export const organizationSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  role: organizationRoleSchema
    .nullable()
    .describe('Your role in it (null: a deployment admin who is not a member)'),
});

/** An organisation just created (the creator, a deployment admin, need not be in it). */
export const createdOrganizationSchema = organizationSchema.omit({ role: true });

/** The organisations the caller belongs to. */
export const organizationListSchema = z.object({ organizations: z.array(organizationSchema) });

/** Creating an organisation (deployment admins). */
export const createOrganizationBody = z.object({ name: z.string().min(1).max(200) });

/** A member of an organisation. */
export const memberSchema = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  role: organizationRoleSchema,
  joinedAt: z.string(),
});

/** An organisation's members. */
export const memberListSchema = z.object({ members: z.array(memberSchema) });

/** Path parameters of the routes of one organisation. */
export const organizationParams = z.object({ organizationId: z.string().min(1).max(100) });

/** Path parameters of the routes of one member of an organisation. */
export const memberParams = organizationParams.extend({ userId: z.string().min(1).max(100) });

/** Adding a member by email (or inviting one). */
export const addMemberBody = z.object({
  email: z.string().email().max(320),
  name: z.string().min(1).max(200).optional(),
  role: organizationRoleSchema.default('member'),
});

/** An invitation sent in place of adding a member. */
export const invitedSchema = z.object({
  invited: z.literal(true),
  email: z.string(),
  role: organizationRoleSchema,
});

/** Changing a member's role. */
export const memberRoleBody = z.object({ role: organizationRoleSchema });

/** An invitation as its invitee sees it. */
export const invitationSchema = z.object({
  id: z.string(),
  organizationId: z.string(),
  organizationName: z.string(),
  role: organizationRoleSchema,
  createdAt: z.string(),
});

/** The invitations for the caller's email. */
export const invitationListSchema = z.object({ invitations: z.array(invitationSchema) });

/** Path parameters of the routes of one invitation. */
export const invitationParams = z.object({ invitationId: z.string().min(1).max(100) });

/** An accepted invitation: the organisation joined, and the role there. */
export const membershipSchema = z.object({ organizationId: z.string(), role: organizationRoleSchema });
