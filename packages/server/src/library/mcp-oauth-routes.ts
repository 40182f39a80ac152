import {
  connectMcpServerBody,
  mcpConnectionListSchema,
  mcpConnectionSchema,
  mcpConnectStartSchema,
  mcpServerParams,
} from '@toolbus/api-schema';
import { z } from 'zod';
import { isSecureOrigin, oauthOrigin } from '../auth/public-origin.ts';
import { cookieValue, setCookieHeader } from '../http/cookie.ts';
import type { RouteRegistry } from '../http/route-registry.ts';
import {
  browserSecretOf,
  callbackLocation,
  MCP_OAUTH_BROWSER_COOKIE,
  MCP_OAUTH_BROWSER_COOKIE_SECONDS,
} from './mcp-oauth-return.ts';
import { MCP_OAUTH_CALLBACK_PATH, type McpOAuthService } from './mcp-oauth-service.ts';

const self = { kind: 'user', scope: 'chat' } as const;

/**
 * Registers the per-user MCP connections: list with status, start connecting (the authorization URL), the OAuth
 * callback, status and disconnect.
 */
export function registerMcpOAuthRoutes(
  registry: RouteRegistry,
  oauth: McpOAuthService,
  options: { readonly publicOrigin?: string | undefined } = {},
): void {
  registry.add(
    {
      method: 'get',
      path: '/v1/mcp-servers',
      operationId: 'listMcpConnections',
      summary: 'The MCP servers, and whether you are connected to each (OAuth servers need you to connect)',
      tag: 'mcp-connections',
      access: self,
      responses: {
        200: { description: 'The servers', schema: mcpConnectionListSchema },
      },
    },
    async ({ principal, context }) => context.json({ servers: await oauth.list(principal) }),
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/mcp-servers/{serverId}/connection',
      operationId: 'getMcpConnection',
      summary: 'Whether you are connected to this OAuth MCP server',
      tag: 'mcp-connections',
      access: self,
      params: mcpServerParams,
      responses: { 200: { description: 'The status', schema: mcpConnectionSchema } },
    },
    async ({ principal, params, context }) => context.json(await oauth.status(principal, params.serverId)),
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/mcp-servers/{serverId}/connection',
      operationId: 'connectMcpServer',
      summary:
        'Start connecting to an OAuth MCP server: "connected" when your stored tokens work, else the authorization URL (PKCE, state) to open',
      tag: 'mcp-connections',
      access: self,
      params: mcpServerParams,
      body: connectMcpServerBody,
      responses: {
        200: {
          description: 'Connected, or where to authorize',
          schema: mcpConnectStartSchema,
        },
      },
    },
    async ({ principal, params, body, context }) => {
      const origin = oauthOrigin(context, options.publicOrigin);
      const browser = browserSecretOf(context.req.header('cookie'));
      const started = await oauth.connect(principal, params.serverId, {
        origin,
        returnTo: body.returnTo,
        browserSecret: browser.secret,
      });
      // The browser that finishes the authorization must be this one (see McpOAuthService).
      context.header(
        'set-cookie',
        setCookieHeader({
          name: MCP_OAUTH_BROWSER_COOKIE,
          value: browser.secret,
          maxAgeSeconds: MCP_OAUTH_BROWSER_COOKIE_SECONDS,
          sameSite: 'Lax',
          path: '/v1/',
          secure: isSecureOrigin(context, options.publicOrigin),
        }),
      );
      return context.json(started);
    },
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/mcp-servers/{serverId}/connection',
      operationId: 'disconnectMcpServer',
      summary: 'Disconnect: forget your tokens for this MCP server',
      tag: 'mcp-connections',
      access: self,
      params: mcpServerParams,
      responses: { 204: { description: 'Disconnected' } },
    },
    async ({ principal, params, context }) => {
      await oauth.disconnect(principal, params.serverId);
      return context.body(null, 204);
    },
  );
  registry.add(
    {
      method: 'get',
      path: MCP_OAUTH_CALLBACK_PATH,
      operationId: 'mcpOAuthCallback',
      summary:
        "Where the authorization server sends the browser back: the code is exchanged and the tokens stored for the user who started (identified by state, and only in the browser that started: it must carry that browser's toolbus_mcp_oauth cookie); redirects to the start's returnTo",
      tag: 'mcp-connections',
      access: { kind: 'public' },
      // Loose: authorization servers add parameters of their own (`iss`, `error_description`, `scope`).
      query: z.looseObject({
        state: z.string().max(200).optional(),
        code: z.string().max(4000).optional(),
        error: z.string().max(200).optional(),
        // RFC 9207: the authorization server names itself; the SDK checks it against the one it registered with.
        iss: z.string().max(2000).optional(),
      }),
      responses: { 302: { description: 'Connected; back to the app' } },
    },
    async ({ query, context }) => {
      const { serverId, returnTo } = await oauth.complete(
        query,
        cookieValue(context.req.header('cookie'), MCP_OAUTH_BROWSER_COOKIE),
      );
      return context.redirect(callbackLocation(returnTo, serverId), 302);
    },
  );
}
