import { z } from 'zod';

const headerMap = z.record(z.string().min(1).max(200), z.string().max(8192));

/** An MCP server's per-user header template, as an admin sets it. */
export const mcpHeaderTemplateBody = z.strictObject({
  headers: headerMap
    .refine((headers) => Object.keys(headers).length <= 50, 'at most 50 headers')
    .describe(
      'Header name → template with {placeholders}, e.g. {"Authorization": "Bearer {api_key}", "X-User": "{user_email}"}; an empty map removes the template',
    ),
});

/** The template as stored, what users fill in, and what was left out. */
export const mcpHeaderTemplateSchema = z.object({
  headers: z.record(z.string(), z.string()),
  placeholders: z
    .array(z.string())
    .describe('What each user supplies (built-ins such as {user_email} are filled by toolbus)'),
  dropped: z
    .array(z.object({ header: z.string(), reason: z.enum(['denylisted', 'invalid-name', 'invalid-value']) }))
    .describe('Headers left out of the template (deny-listed or not legal HTTP), by name'),
});

/** A user's values for a server's template (secrets: stored encrypted, never shown back). */
export const mcpCredentialsBody = z.strictObject({
  values: z
    .record(z.string().min(1).max(100), z.string())
    .refine((values) => Object.keys(values).length <= 50, 'at most 50 values')
    .describe('Placeholder → value, e.g. {"api_key": "…"}; replaces what you stored before'),
});

/** Which of a server's placeholders the caller has filled (never the values). */
export const mcpCredentialsStatusSchema = z.object({
  serverId: z.string(),
  placeholders: z.array(z.object({ name: z.string(), set: z.boolean() })),
  builtIns: z.array(z.string()).describe('Placeholders toolbus fills from the signed-in user'),
});
