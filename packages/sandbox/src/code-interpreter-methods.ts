/**
 * The oldest service version each client method works with. Sessions and the streaming endpoint arrived in 0.4.0
 * of the protocol (Onyx's code-interpreter service introduced them there, and toolbus's interpreter continues that
 * numbering so one client serves both; see docs/decisions/differences-from-onyx.md); the rest exist on every
 * version.
 */
export const codeInterpreterMethodVersions = {
  health: '0.0.0',
  execute: '0.0.0',
  executeStream: '0.4.0',
  uploadFile: '0.0.0',
  downloadFile: '0.0.0',
  deleteFile: '0.0.0',
  createSession: '0.4.0',
  runSessionCommand: '0.4.0',
  // Older servers answer the route with 404, and the client falls back to the batch endpoint.
  runSessionCommandStream: '0.4.0',
  deleteSession: '0.4.0',
} as const;

/** A client method name. */
export type CodeInterpreterMethod = keyof typeof codeInterpreterMethodVersions;

/**
 * The oldest service version that understands each optional request field. A request that uses a field (a
 * non-empty `skills`) is refused before it is sent to an older server, which would answer 400 for an unknown field.
 */
export const codeInterpreterFieldVersions = {
  /** `skills` of execute, executeStream and createSession: toolbus interpreter 1.1.0. */
  skills: '1.1.0',
} as const;

/** An optional request field whose support depends on the server's version. */
export type CodeInterpreterField = keyof typeof codeInterpreterFieldVersions;

/** What `supports()` can ask about: a method or an optional request field. */
export type CodeInterpreterFeature = CodeInterpreterMethod | CodeInterpreterField;

/** The minimum server version of a method or field. */
export function requiredServerVersion(feature: CodeInterpreterFeature): string {
  return feature in codeInterpreterFieldVersions
    ? codeInterpreterFieldVersions[feature as CodeInterpreterField]
    : codeInterpreterMethodVersions[feature as CodeInterpreterMethod];
}
