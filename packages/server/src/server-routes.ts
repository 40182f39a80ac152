import { healthSchema } from '@toolbus/api-schema';
import { omitUndefined } from '@toolbus/spec';
import type { Hono } from 'hono';
import type { TurnRunner } from './chats/turn-runner.ts';
import type { RouteRegistry } from './http/route-registry.ts';
import { type HealthComponent, healthReport } from './observability/health-component.ts';

/** The version in the OpenAPI document. */
export const SERVER_API_VERSION = '0.1.0';

/**
 * Mounts `GET /health` and `GET /openapi.json`: served before the guard (health checks and document fetches carry
 * no key), and documented like the rest. Returns the OpenAPI document of every route in `routes`.
 */
export function mountServerRoutes(
  app: Hono,
  routes: RouteRegistry,
  options: { readonly turns: TurnRunner; readonly healthComponents: readonly HealthComponent[] },
): (serverUrl?: string) => Record<string, unknown> {
  routes.describe({
    method: 'get',
    path: '/health',
    operationId: 'health',
    summary: 'Liveness: the process serves, and how many turns it runs',
    tag: 'server',
    access: { kind: 'public' },
    responses: {
      200: {
        description:
          'Serving. With components (a sandbox pool): `status` is degraded while one of them is degraded or down',
        schema: healthSchema,
      },
    },
  });
  routes.describe({
    method: 'get',
    path: '/openapi.json',
    operationId: 'openApiDocument',
    summary: "This server's OpenAPI document",
    tag: 'server',
    access: { kind: 'public' },
    responses: { 200: { description: 'The OpenAPI 3.1 document', contentType: 'application/json' } },
  });
  app.get('/health', (context) =>
    context.json(healthReport({ runningTurns: options.turns.running, components: options.healthComponents })),
  );
  const openApiDocument = (serverUrl?: string) =>
    routes.openApiDocument({
      title: 'toolbus',
      version: SERVER_API_VERSION,
      ...omitUndefined({ serverUrl: serverUrl || undefined }),
    });
  app.get('/openapi.json', (context) => context.json(openApiDocument(new URL(context.req.url).origin)));
  return openApiDocument;
}
