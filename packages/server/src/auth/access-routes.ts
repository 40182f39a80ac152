import {
  apiKeyListSchema,
  createdKeySchema,
  createKeyBody,
  createUserBody,
  createUserKeyBody,
  keyParams,
  meSchema,
  sessionSchema,
  sessionStateSchema,
  setUserRoleBody,
  userListSchema,
  userParams,
  userSchema,
} from '@toolbus/api-schema';
import { setCookieHeader } from '../http/cookie.ts';
import type { ApiKeyScope } from '../http/principal.ts';
import type { RouteRegistry } from '../http/route-registry.ts';
import { type AccessService, SESSION_COOKIE, SESSION_LIFETIME_MS } from './access-service.ts';
import { isSecureOrigin } from './public-origin.ts';
import type { Authenticate } from './request-guard.ts';

const self = { kind: 'user', scope: 'chat' } as const;
const minting = { kind: 'user', scope: 'keys' } as const;
const admin = { kind: 'admin' } as const;

/** Registers who-am-I, API keys, web sessions and (admin) users. */
export function registerAccessRoutes(
  registry: RouteRegistry,
  access: AccessService,
  options: {
    readonly publicOrigin?: string | undefined;
    /** How the guard finds the caller: `GET /v1/session` answers whether it finds one. */
    readonly authenticate?: Authenticate;
  } = {},
): void {
  registerKeyRoutes(registry, access);
  registerSessionRoutes(registry, access, options);
  registerUserAdminRoutes(registry, access);
}

/** Who the caller is, and the caller's own API keys. */
function registerKeyRoutes(registry: RouteRegistry, access: AccessService): void {
  registry.add(
    {
      method: 'get',
      path: '/v1/me',
      operationId: 'getMe',
      summary: 'Who the caller is',
      tag: 'access',
      access: self,
      responses: {
        200: {
          description: 'The caller',
          schema: meSchema,
        },
      },
    },
    ({ principal, context }) =>
      context.json({
        ...userView(principal.user),
        // The role the server grants this request (local mode acts as an admin whatever the stored row says),
        // so a client shows exactly the pages the API will answer.
        role: principal.role,
        scopes: principal.scopes,
        organization: principal.organization,
      }),
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/keys',
      operationId: 'createApiKey',
      summary:
        'Create an API key for yourself (shown once), acting only in the organisation this request acts in',
      tag: 'access',
      access: minting,
      body: createKeyBody,
      responses: { 201: { description: 'The key', schema: createdKeySchema } },
    },
    async ({ principal, body, context }) =>
      context.json(
        await access.createApiKey(principal, {
          name: body.name,
          scopes: body.scopes as ApiKeyScope[] | undefined,
        }),
        201,
      ),
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/keys',
      operationId: 'listApiKeys',
      summary: 'Your API keys (never the keys themselves)',
      tag: 'access',
      access: self,
      responses: { 200: { description: 'The keys', schema: apiKeyListSchema } },
    },
    async ({ principal, context }) => context.json({ keys: await access.listApiKeys(principal) }),
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/keys/{keyId}',
      operationId: 'revokeApiKey',
      summary: 'Revoke one of your API keys (it stops working at once)',
      tag: 'access',
      access: self,
      params: keyParams,
      responses: { 204: { description: 'Revoked' }, 404: { description: 'No such key of yours' } },
    },
    async ({ principal, params, context }) => {
      await access.revokeApiKey(principal, params.keyId);
      return context.body(null, 204);
    },
  );
}

/** A web session: signing in with a key sets the session cookie, signing out clears it. */
function registerSessionRoutes(
  registry: RouteRegistry,
  access: AccessService,
  options: { readonly publicOrigin?: string | undefined; readonly authenticate?: Authenticate },
): void {
  const authenticate = options.authenticate;
  if (authenticate) {
    registry.add(
      {
        method: 'get',
        path: '/v1/session',
        operationId: 'getSessionState',
        summary:
          'Whether the caller is signed in (a session cookie, a key, or local mode). Public: answers 200 either way, so a page decides between its sign-in form and the app without a failed request',
        tag: 'access',
        access: { kind: 'public' },
        responses: { 200: { description: 'Signed in or not', schema: sessionStateSchema } },
      },
      // Says only yes or no: who the caller is stays behind `GET /v1/me`, which needs a valid credential.
      async ({ context }) => context.json({ signedIn: (await authenticate(context)) !== undefined }),
    );
  }
  registry.add(
    {
      method: 'post',
      path: '/v1/session',
      operationId: 'createSession',
      summary:
        "Sign a browser in: sets an HTTP-only session cookie and returns the CSRF token every changing request must send. The session holds the calling key's scopes and ends when that key is revoked",
      tag: 'access',
      access: self,
      responses: {
        201: { description: 'Signed in', schema: sessionSchema },
      },
    },
    async ({ principal, context }) => {
      const session = await access.createSession(principal);
      context.header(
        'set-cookie',
        setCookieHeader({
          name: SESSION_COOKIE,
          value: session.token,
          maxAgeSeconds: SESSION_LIFETIME_MS / 1000,
          sameSite: 'Strict',
          path: '/',
          // Behind a TLS proxy the request is plain http: the public origin says the browser uses https.
          secure: isSecureOrigin(context, options.publicOrigin),
        }),
      );
      return context.json({ csrfToken: session.csrfToken, expiresAt: session.expiresAt }, 201);
    },
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/session',
      operationId: 'deleteSession',
      summary: 'Sign the browser out',
      tag: 'access',
      access: self,
      responses: { 204: { description: 'Signed out' } },
    },
    async ({ context }) => {
      await access.endSession(context);
      context.header(
        'set-cookie',
        setCookieHeader({
          name: SESSION_COOKIE,
          value: '',
          maxAgeSeconds: 0,
          sameSite: 'Strict',
          path: '/',
          secure: isSecureOrigin(context, options.publicOrigin),
        }),
      );
      return context.body(null, 204);
    },
  );
}

/** An admin's view of the users: list, create, change a role, mint a key for one. */
function registerUserAdminRoutes(registry: RouteRegistry, access: AccessService): void {
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/users',
      operationId: 'listUsers',
      summary: 'Every user',
      tag: 'admin',
      access: admin,
      responses: { 200: { description: 'The users', schema: userListSchema } },
    },
    async ({ principal, context }) =>
      context.json({ users: (await access.listUsers(principal)).map(userView) }),
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/admin/users',
      operationId: 'createUser',
      summary: 'Create a user',
      tag: 'admin',
      access: admin,
      body: createUserBody,
      responses: { 201: { description: 'The user', schema: userSchema } },
    },
    async ({ principal, body, context }) =>
      context.json(userView(await access.createUser(principal, body)), 201),
  );
  registry.add(
    {
      method: 'patch',
      path: '/v1/admin/users/{userId}',
      operationId: 'setUserRole',
      summary: "Change a user's role",
      tag: 'admin',
      access: admin,
      params: userParams,
      body: setUserRoleBody,
      responses: { 200: { description: 'The user', schema: userSchema } },
    },
    async ({ principal, params, body, context }) =>
      context.json(userView(await access.setRole(principal, params.userId, body.role))),
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/admin/users/{userId}/keys',
      operationId: 'createUserApiKey',
      summary: 'Create an API key for a user (shown once)',
      tag: 'admin',
      access: admin,
      params: userParams,
      body: createUserKeyBody,
      responses: { 201: { description: 'The key', schema: createdKeySchema } },
    },
    async ({ principal, params, body, context }) =>
      context.json(
        await access.createApiKey(principal, {
          name: body.name,
          userId: params.userId,
          organizationId: body.organizationId,
          scopes: body.scopes as ApiKeyScope[] | undefined,
        }),
        201,
      ),
  );
}

function userView(user: {
  id: string;
  email: string;
  name: string | null;
  role: 'admin' | 'user';
  createdAt: string;
}) {
  return { id: user.id, email: user.email, name: user.name, role: user.role, createdAt: user.createdAt };
}
