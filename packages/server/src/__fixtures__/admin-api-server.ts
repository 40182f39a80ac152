// A server with API keys on a fresh test storage and its deployment admin, for the tests that act as several users
// in several organisations through the HTTP API (tenancy, invitations): requests as any key, organisations and
// members made by the admin, and a key for any user in any organisation.
import assert from 'node:assert/strict';
import { omitUndefined } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import { createServer, type ToolbusServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';
import { openTestStorage } from './test-server.ts';

/** An answer: its status, its text, and the text parsed as JSON (typed by the caller's cast). */
export interface ApiAnswer {
  readonly status: number;
  readonly text: string;
  readonly body: never;
}

/** The running server, its admin and the calls the tests make. */
export interface AdminApiServer {
  readonly storage: Storage;
  readonly server: ToolbusServer;
  /** The deployment admin's key (all scopes). */
  readonly adminKey: string;
  /** `method path` as `key`, with `body` as JSON. */
  call(method: string, path: string, key: string, body?: unknown): Promise<ApiAnswer>;
  /** Like {@link call}, asserting a 201 and returning the body. */
  created<T>(method: string, path: string, key: string, body: unknown): Promise<T>;
  /** A new organisation's id, made by the admin. */
  organization(name: string): Promise<string>;
  /** The user id of `email`, added to the organisation directly by the admin (as `role`). */
  member(organizationId: string, email: string, role?: 'admin' | 'member'): Promise<string>;
  /** A key of `userId` bound to `organizationId` with `scopes` (default chat), made by the admin. */
  keyIn(userId: string, organizationId: string, scopes?: readonly string[]): Promise<string>;
  close(): Promise<void>;
}

export async function startAdminApiServer(): Promise<AdminApiServer> {
  const { storage } = await openTestStorage();
  const server = await createServer({ storage, auth: 'api-keys', defaultModel: 'openai:unused' });
  const http: ListeningServer = await listen(server, { port: 0 });
  const adminKey = (await server.access.bootstrapAdmin('admin@example.com'))?.key ?? '';
  const call = async (method: string, path: string, key: string, body?: unknown): Promise<ApiAnswer> => {
    const response = await fetch(`${http.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, text, body: (text ? JSON.parse(text) : undefined) as never };
  };
  const created = async <T>(method: string, path: string, key: string, body: unknown): Promise<T> => {
    const answer = await call(method, path, key, body);
    assert.equal(answer.status, 201, answer.text);
    return answer.body as T;
  };
  return {
    storage,
    server,
    adminKey,
    call,
    created,
    organization: async (name) =>
      (await created<{ id: string }>('POST', '/v1/admin/organizations', adminKey, { name })).id,
    member: async (organizationId, email, role) =>
      (
        await created<{ userId: string }>('POST', `/v1/organizations/${organizationId}/members`, adminKey, {
          email,
          ...omitUndefined({ role }),
        })
      ).userId,
    keyIn: async (userId, organizationId, scopes = ['chat']) =>
      (
        await created<{ key: string }>('POST', `/v1/admin/users/${userId}/keys`, adminKey, {
          name: 'k',
          organizationId,
          scopes,
        })
      ).key,
    close: async () => {
      await http.close();
      await storage.close();
    },
  };
}

/** A server in local mode (every request acts as the local admin) with the default strict guarded fetch. */
export interface LocalApiServer {
  readonly storage: Storage;
  /** `method path` with `body` as JSON; the answer's body typed by the caller. */
  call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ readonly status: number; readonly body: T }>;
  close(): Promise<void>;
}

export async function startLocalApiServer(): Promise<LocalApiServer> {
  const { storage } = await openTestStorage();
  const server = await createServer({
    storage,
    auth: 'local',
    defaultModel: 'openai-compatible:http://127.0.0.1:9/v1#unused',
    logger: { info() {}, warn() {}, error() {} } as never,
  });
  const http = await listen(server, { port: 0 });
  return {
    storage,
    async call<T>(method: string, path: string, body?: unknown) {
      const response = await fetch(`${http.url}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as T };
    },
    async close() {
      await http.close();
      await storage.close();
    },
  };
}
