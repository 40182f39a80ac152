import { CodeInterpreterError } from './code-interpreter-error.ts';

/**
 * Every server of a pool failed to answer: the message is written for the model (and the person) that sees it
 * through run_python, so it says what to do instead. Server addresses stay out of it: they are deployment
 * details, not the model's business.
 */
export function noServerAnswersError(serverCount: number, cause: unknown): CodeInterpreterError {
  return new CodeInterpreterError({
    code: 'code_interpreter_unreachable',
    message: `none of the ${serverCount} code interpreter services answers right now (all are down or unreachable); code cannot run until one is back`,
    cause,
  });
}

/**
 * The server holding a session or file stopped answering. A session's workspace and a stored file live on one
 * server only, so they are gone with it: the pool does not re-create them elsewhere (it cannot know the files a
 * session had built up), it says so, and the caller starts a new session or uploads the file again.
 */
export function serverLostError(options: {
  readonly kind: 'file' | 'session';
  readonly pooledId: string;
  readonly cause: unknown;
}): CodeInterpreterError {
  const what =
    options.kind === 'session'
      ? 'the sandbox session and the files in its workspace were lost with it; create a new session'
      : 'the file was stored only there; upload it again';
  return new CodeInterpreterError({
    code: 'code_interpreter_unreachable',
    serviceCode: options.kind === 'session' ? 'session_lost' : 'file_lost',
    message: `the code interpreter service holding ${options.kind} ${JSON.stringify(options.pooledId.slice(0, 100))} is not answering: ${what}`,
    cause: options.cause,
  });
}
