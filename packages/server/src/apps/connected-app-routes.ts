import { omitUndefined } from '@toolbus/spec';
import { z } from 'zod';
import { actsAsDeploymentAdmin, type Principal } from '../http/principal.ts';
import type { RouteRegistry } from '../http/route-registry.ts';
import type { ConnectedAppActor, ConnectedAppAdmin } from './connected-app-admin.ts';

const policySchema = z.enum(['ALWAYS', 'ASK', 'DENY']);
const actionSchema = z.object({
  name: z.string().min(1).max(100).describe('Shown on approval cards (`create_issue`)'),
  method: z.string().min(1).max(16).optional().describe('HTTP method; any when absent'),
  pathPattern: z.string().min(1).max(2000).describe('A regular expression the whole request path must match'),
  policy: policySchema,
});
const secretMap = z.record(z.string().min(1).max(200), z.string().max(16_384));
const summarySchema = z.object({
  id: z.number(),
  name: z.string(),
  shared: z.boolean().describe("The organisation's app (every user), not only yours"),
  urlPatterns: z.array(z.string()),
  actions: z.array(actionSchema),
  headerNames: z.array(z.string()).describe('Names only: header values are never returned'),
  organizationValueNames: z.array(z.string()),
  userValueNames: z.array(z.string()).describe('Names of your own values'),
  enabled: z.boolean(),
  createdAt: z.string(),
});
const createSchema = z.object({
  name: z.string().min(1).max(100),
  urlPatterns: z
    .array(z.string().min(1).max(2000))
    .min(1)
    .max(20)
    .describe('Regular expressions the whole request URL must match'),
  headers: secretMap.describe(
    'Headers to add: templates that may use {{org.NAME}} and {{user.NAME}} (write-only, stored encrypted)',
  ),
  actions: z.array(actionSchema).max(100).optional(),
  defaultPolicy: policySchema.optional().describe('The policy of requests no action matches (default ASK)'),
  organizationValues: secretMap.optional().describe('Values for {{org.NAME}} (write-only)'),
  userValues: secretMap.optional().describe('Your values for {{user.NAME}} (write-only)'),
  shared: z.boolean().optional().describe('Connect it for the whole organisation (administrators only)'),
});
const appParams = z.object({ appId: z.coerce.number().int().positive() });
const chat = { kind: 'user', scope: 'chat' } as const;

/** The actor of a request: its user, an admin when its role is. */
export function connectedAppActor(principal: Principal): ConnectedAppActor {
  return {
    userId: principal.user.id,
    organizationId: principal.organization.id,
    // The admin scope too: an admin's narrower key manages only its own apps.
    isAdmin: actsAsDeploymentAdmin(principal),
  };
}

/** Registers the connected-app routes: the caller's own apps and the organisation's (credentials write-only). */
export function registerConnectedAppRoutes(registry: RouteRegistry, apps: ConnectedAppAdmin): void {
  registry.add(
    {
      method: 'get',
      path: '/v1/apps',
      operationId: 'listConnectedApps',
      summary: "Your connected apps and the organisation's (names of credentials, never values)",
      tag: 'apps',
      access: chat,
      responses: { 200: { description: 'The apps', schema: z.object({ apps: z.array(summarySchema) }) } },
    },
    async ({ principal, context }) => context.json({ apps: await apps.list(connectedAppActor(principal)) }),
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/apps',
      operationId: 'createConnectedApp',
      summary: 'Connect an API that sandboxed code may call (the egress proxy adds the credential)',
      tag: 'apps',
      access: chat,
      body: createSchema,
      responses: {
        201: { description: 'The app', schema: summarySchema },
        400: { description: 'A field is invalid (named)' },
        403: { description: 'Only administrators connect organisation apps' },
        409: { description: 'An app of that name exists' },
      },
    },
    async ({ principal, body, context }) => {
      const { actions, defaultPolicy, organizationValues, userValues, shared, ...rest } = body;
      const created = await apps.add(connectedAppActor(principal), {
        ...rest,
        ...omitUndefined({ actions: actions?.map(withoutUndefinedMethod) }),
        ...omitUndefined({ defaultPolicy }),
        ...omitUndefined({ organizationValues }),
        ...omitUndefined({ userValues }),
        ...omitUndefined({ shared }),
      });
      return context.json(created, 201);
    },
  );
  registry.add(
    {
      method: 'put',
      path: '/v1/apps/{appId}/values',
      operationId: 'setConnectedAppValues',
      summary: 'Set your own values for an app ({{user.NAME}}; write-only)',
      tag: 'apps',
      access: chat,
      params: appParams,
      body: z.object({ values: secretMap }),
      responses: {
        200: { description: 'The app', schema: summarySchema },
        404: { description: 'Not an app you can use' },
      },
    },
    async ({ principal, params, body, context }) =>
      context.json(await apps.setUserValues(connectedAppActor(principal), params.appId, body.values)),
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/apps/{appId}',
      operationId: 'deleteConnectedApp',
      summary: 'Remove your app (an organisation app: administrators only)',
      tag: 'apps',
      access: chat,
      params: appParams,
      responses: {
        204: { description: 'Removed' },
        403: { description: "The organisation's app, and you are not an administrator" },
        404: { description: 'Not an app you can use' },
      },
    },
    async ({ principal, params, context }) => {
      await apps.remove(connectedAppActor(principal), params.appId);
      return context.body(null, 204);
    },
  );
}

function withoutUndefinedMethod(action: z.output<typeof actionSchema>) {
  const { method, ...rest } = action;
  return method === undefined ? rest : { ...rest, method: method.toUpperCase() };
}
