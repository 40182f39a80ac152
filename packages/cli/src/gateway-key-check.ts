import { createHash } from 'node:crypto';
import type { GatewayCaller } from '@toolbus/gateway';
import type { Storage } from '@toolbus/storage';

/**
 * The gateway's key check over toolbus's stored API keys (the ones `toolbus serve --auth api-keys` makes): a key
 * that exists, is not revoked and holds the `chat` scope. Keys are stored as SHA-256 hashes; the caller is the
 * key's id, never the key.
 */
export function storedKeyAuthenticator(
  storage: Storage,
): (key: string | undefined) => Promise<GatewayCaller | undefined> {
  return async (key) => {
    if (key === undefined || key === '') return undefined;
    const record = await storage.access.getApiKey({
      keyHash: createHash('sha256').update(key).digest('hex'),
    });
    if (record === undefined || record.revokedAt !== null || !record.scopes.includes('chat'))
      return undefined;
    return { id: record.id };
  };
}
