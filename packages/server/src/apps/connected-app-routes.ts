import {
  type appActionSchema,
  appParams,
  appValuesBody,
  connectedAppListSchema,
  connectedAppSchema,
  createConnectedAppBody,
} from '@toolbus/api-schema';
import { omitUndefined } from '@toolbus/spec';
import type { z } from 'zod';
import { actsAsDeploymentAdmin, type Principal } from '../http/principal.ts';
import type { RouteRegistry } from '../http/route-registry.ts';
import type { ConnectedAppActor, ConnectedAppAdmin } from './connected-app-admin.ts';

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
      responses: { 200: { description: 'The apps', schema: connectedAppListSchema } },
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
      body: createConnectedAppBody,
      responses: {
        201: { description: 'The app', schema: connectedAppSchema },
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
      body: appValuesBody,
      responses: {
        200: { description: 'The app', schema: connectedAppSchema },
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

function withoutUndefinedMethod(action: z.output<typeof appActionSchema>) {
  const { method, ...rest } = action;
  return method === undefined ? rest : { ...rest, method: method.toUpperCase() };
}
