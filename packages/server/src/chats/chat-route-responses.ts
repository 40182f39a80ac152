// What every chat and turn route shares: who may call it, and the error answers it documents.

/** A chat route is for a user with the `chat` scope. */
export const chatAccess = { kind: 'user', scope: 'chat' } as const;

/** The error answers of the chat and turn routes, for their OpenAPI documents. */
export const chatErrorResponses = {
  400: { description: 'Invalid input; the message names the field' },
  401: { description: 'No valid credential' },
  404: { description: 'No such chat (or not yours)' },
};
