import type { CodeInterpreter } from '@toolbus/sandbox';

/**
 * A {@link CodeInterpreter} whose service is found (or started) only when a run needs it: `runs` resolves the one
 * that runs code and stores files, `probe` the one that answers health, version and feature questions. Assembling a
 * turn's tools therefore starts nothing; the first run_python or coding_agent call does, and a failure of `runs`
 * (a sandbox that cannot isolate, remembered with its reason) is that call's answer.
 */
export function lazyCodeInterpreter(options: {
  readonly runs: () => Promise<CodeInterpreter>;
  readonly probe: () => Promise<CodeInterpreter>;
  /** Answers `isAvailable` without a request (what the sandbox's start-up probe found). */
  readonly isAvailable: () => Promise<boolean>;
}): CodeInterpreter {
  const { runs, probe } = options;
  return {
    health: async (callOptions) => (await probe()).health(callOptions),
    isAvailable: async () => {
      try {
        return await options.isAvailable();
      } catch {
        return false;
      }
    },
    serverVersion: async (callOptions) => (await probe()).serverVersion(callOptions),
    supports: async (...features) => (await probe()).supports(...features),
    execute: async (request, callOptions) => (await runs()).execute(request, callOptions),
    async *executeStream(request, callOptions) {
      yield* (await runs()).executeStream(request, callOptions);
    },
    uploadFile: async (uploadOptions) => (await runs()).uploadFile(uploadOptions),
    downloadFile: async (fileId, callOptions) => (await runs()).downloadFile(fileId, callOptions),
    deleteFile: async (fileId, callOptions) => (await runs()).deleteFile(fileId, callOptions),
    createSession: async (request, callOptions) => (await runs()).createSession(request, callOptions),
    runSessionCommand: async (sessionId, request, callOptions) =>
      (await runs()).runSessionCommand(sessionId, request, callOptions),
    async *runSessionCommandStream(sessionId, request, callOptions) {
      yield* (await runs()).runSessionCommandStream(sessionId, request, callOptions);
    },
    deleteSession: async (sessionId, callOptions) => (await runs()).deleteSession(sessionId, callOptions),
  };
}
