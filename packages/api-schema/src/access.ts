import { z } from 'zod';

/**
 * What an API key may be used for: `chat` (chats, files, memories), `admin` (the admin API), `mcp` (the MCP
 * endpoint), `keys` (minting API keys: never more scopes than the minting key holds). In a stable order.
 */
export const API_KEY_SCOPES = ['chat', 'admin', 'mcp', 'keys'] as const;

/** One scope of an API key. */
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** A scope, as a request names it. */
export const apiKeyScopeSchema = z.enum(API_KEY_SCOPES);

/** An API key as its owner sees it: never the key itself, which is shown once at creation. */
export const apiKeySchema = z.object({
  id: z.string(),
  organizationId: z.string().describe('The organisation the key acts in, and only there'),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.string()),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});

/** A key just made: the key itself, this once, and how it is listed. */
export const createdKeySchema = z.object({
  key: z.string().describe('The API key: shown this once, stored only as a hash'),
  apiKey: apiKeySchema,
});

/** A user account. */
export const userSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  role: z.enum(['admin', 'user']),
  createdAt: z.string(),
});

/** The caller: the user, the scopes the request holds, and the organisation it acts in with the caller's role. */
export const meSchema = userSchema.extend({
  scopes: z.array(z.string()),
  organization: z.object({ id: z.string(), role: z.enum(['admin', 'member']) }),
});

/** A signed-in browser session: the CSRF token every changing request sends, and when it ends. */
export const sessionSchema = z.object({ csrfToken: z.string(), expiresAt: z.string() });

/** Whether a request's credential (session cookie, key, or local mode) is valid: a page asks before `/v1/me`. */
export const sessionStateSchema = z.object({ signedIn: z.boolean() });

/** Creating an API key for yourself. */
export const createKeyBody = z.object({
  name: z.string().min(1).max(100),
  scopes: z
    .array(apiKeyScopeSchema)
    .min(1)
    .max(API_KEY_SCOPES.length)
    .optional()
    .describe('Default ["chat"]; only scopes the calling key (or session) holds'),
});

/** Creating an API key for a user (admin). */
export const createUserKeyBody = createKeyBody.extend({
  organizationId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe(
      'The organisation the key acts in (one the user is a member of); default yours when they are in it, else their first',
    ),
});

/** Path parameters of the routes of one API key. */
export const keyParams = z.object({ keyId: z.string().min(1).max(100) });

/** Path parameters of the routes of one user. */
export const userParams = z.object({ userId: z.string().min(1).max(100) });

/** Creating a user (admin). */
export const createUserBody = z.object({
  email: z.string().email().max(320),
  name: z.string().min(1).max(200).optional(),
  role: z.enum(['admin', 'user']).optional(),
});

/** Changing a user's role (admin). */
export const setUserRoleBody = z.object({ role: z.enum(['admin', 'user']) });

/** The caller's API keys. */
export const apiKeyListSchema = z.object({ keys: z.array(apiKeySchema) });

/** Every user (admin). */
export const userListSchema = z.object({ users: z.array(userSchema) });
