import type { EgressContext } from '@toolbus/egress';
import { DEFAULT_ORGANIZATION_ID, type Storage } from '@toolbus/storage';

/**
 * Session ownership for a standalone egress proxy (`toolbus egress serve`): a session is a chat, and it belongs to
 * an identity when the chat is that user's, in that organisation (an identity naming none acts in the default
 * one). Every session the proxy would ask in passes this check, labelled or tagged in-band; an unknown chat, a
 * sandbox without a user, or a storage failure is a no.
 */
export function storageEgressSessions(storage: Storage): Pick<EgressContext, 'sessionBelongsTo'> {
  return {
    sessionBelongsTo: async (sessionId, identity) => {
      if (identity.userId === undefined) return false;
      const chat = await storage.chats.get(sessionId);
      return (
        chat !== undefined &&
        chat.userId === identity.userId &&
        chat.organizationId === (identity.organizationId ?? DEFAULT_ORGANIZATION_ID)
      );
    },
  };
}
