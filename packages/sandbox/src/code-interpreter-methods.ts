/**
 * The oldest service version each client method works with. Sessions and the streaming endpoint arrived in 0.4.0
 * (the Onyx service's numbering, which toolbus's interpreter continues); the rest exist on every version.
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
  deleteSession: '0.4.0',
} as const;

/** A client method name. */
export type CodeInterpreterMethod = keyof typeof codeInterpreterMethodVersions;
