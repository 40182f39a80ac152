// One interpreter server per suite: started before its tests, closed after them.
import { after, before } from 'node:test';
import { type InterpreterServerOptions, startInterpreterServer } from '../interpreter-server.ts';

/** The running server a suite talks to; `url` is read once the suite's `before` has started it. */
export interface SuiteInterpreterServer {
  readonly url: string;
}

/** Registers `before`/`after` hooks in the calling `describe` that start and close a server with `options`. */
export function useInterpreterServer(options: InterpreterServerOptions = {}): SuiteInterpreterServer {
  let server: Awaited<ReturnType<typeof startInterpreterServer>> | undefined;
  before(async () => {
    server = await startInterpreterServer(options);
  });
  after(async () => {
    await server?.close();
  });
  return {
    get url() {
      if (!server) throw new Error('the interpreter server starts in the suite’s before hook');
      return server.url;
    },
  };
}
