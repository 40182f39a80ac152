import { ToolbusClient } from '@toolbus/client';
import { omitUndefined } from '@toolbus/spec';
import { transientFailure } from './transient-failure.ts';

const csrfKey = 'toolbus.csrf';

/** The page's client: same origin, the session's CSRF token kept for this tab (so a reload stays signed in). */
const savedCsrf = sessionStorage.getItem(csrfKey);
export let client = new ToolbusClient(omitUndefined({ csrfToken: savedCsrf || undefined }));

/** Signs in with an API key and keeps the session's CSRF token for this tab. */
export async function signIn(apiKey: string): Promise<void> {
  const fresh = new ToolbusClient();
  const session = await fresh.signIn(apiKey);
  sessionStorage.setItem(csrfKey, session.csrfToken);
  client = fresh;
}

/** Signs out and forgets the token. */
export async function signOut(): Promise<void> {
  try {
    await client.signOut();
  } finally {
    sessionStorage.removeItem(csrfKey);
    client = new ToolbusClient();
  }
}

/** A readable message of any failure (a transient one in human words: no status codes, no request lines). */
export function messageOf(error: unknown): string {
  const transient = transientFailure(error);
  if (transient) return transient.words;
  return error instanceof Error ? error.message : String(error);
}
