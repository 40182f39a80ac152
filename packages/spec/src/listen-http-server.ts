/** The part of a Node.js `net.Server` that {@link listenHttpServer} uses (typed here: spec loads no Node module). */
export interface ListenableServer {
  once(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
  listen(port: number, host: string, listener: () => void): unknown;
  address(): { readonly address: string; readonly family: string; readonly port: number } | string | null;
}

/** Options for {@link listenHttpServer}. */
export interface ListenHttpServerOptions {
  /** Default 0: a free port. */
  readonly port?: number | undefined;
  /** Default `127.0.0.1`: loopback only, unless the caller asks for more. */
  readonly host?: string | undefined;
}

/**
 * Starts an HTTP server listening and resolves the base URL it is reached at, `http://host:port` (an IPv6 host in
 * brackets); rejects with the server's error when it cannot listen (the port is taken). The toolbus services and
 * test servers start this one way, so none of them guesses its own URL.
 */
export async function listenHttpServer(
  server: ListenableServer,
  options: ListenHttpServerOptions = {},
): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      // Listening: a later error is the server's owner's to handle, not swallowed by this start-up listener.
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  // A server given a pipe path has no port: no HTTP URL to give.
  if (address === null || typeof address === 'string') throw new Error('the server listens on no TCP port');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
