import { z } from 'zod';

/** What happens to a request of a connected app: sent, held for the chat owner's approval, or refused. */
export const appPolicySchema = z.enum(['ALWAYS', 'ASK', 'DENY']);

/** A named kind of request of a connected app, with its policy. */
export const appActionSchema = z.object({
  name: z.string().min(1).max(100).describe('Shown on approval cards (`create_issue`)'),
  method: z.string().min(1).max(16).optional().describe('HTTP method; any when absent'),
  pathPattern: z.string().min(1).max(2000).describe('A regular expression the whole request path must match'),
  policy: appPolicySchema,
});

/** Write-only values by name (header templates, `{{org.NAME}}` and `{{user.NAME}}` values). */
export const secretMapSchema = z.record(z.string().min(1).max(200), z.string().max(16_384));

/** A connected app as listed: names of its secrets only, never their values. */
export const connectedAppSchema = z.object({
  id: z.number(),
  name: z.string(),
  shared: z.boolean().describe("The organisation's app (every user), not only yours"),
  urlPatterns: z.array(z.string()),
  actions: z.array(appActionSchema),
  headerNames: z.array(z.string()).describe('Names only: header values are never returned'),
  organizationValueNames: z.array(z.string()),
  userValueNames: z.array(z.string()).describe('Names of your own values'),
  enabled: z.boolean(),
  createdAt: z.string(),
});

/** The connected apps the caller sees. */
export const connectedAppListSchema = z.object({ apps: z.array(connectedAppSchema) });

/** Connecting an app. */
export const createConnectedAppBody = z.object({
  name: z.string().min(1).max(100),
  urlPatterns: z
    .array(z.string().min(1).max(2000))
    .min(1)
    .max(20)
    .describe('Regular expressions the whole request URL must match'),
  headers: secretMapSchema.describe(
    'Headers to add: templates that may use {{org.NAME}} and {{user.NAME}} (write-only, stored encrypted)',
  ),
  actions: z.array(appActionSchema).max(100).optional(),
  defaultPolicy: appPolicySchema
    .optional()
    .describe('The policy of requests no action matches (default ASK)'),
  organizationValues: secretMapSchema.optional().describe('Values for {{org.NAME}} (write-only)'),
  userValues: secretMapSchema.optional().describe('Your values for {{user.NAME}} (write-only)'),
  shared: z.boolean().optional().describe('Connect it for the whole organisation (administrators only)'),
});

/** Setting the caller's own values of an app. */
export const appValuesBody = z.object({ values: secretMapSchema });

/** Path parameters of the routes of one connected app. */
export const appParams = z.object({ appId: z.coerce.number().int().positive() });
