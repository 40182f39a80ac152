import type { StdioClientTransport, StdioServerParameters } from '@modelcontextprotocol/client/stdio';

/**
 * The SDK's stdio transport, told apart from the base class so that the SDK probes `server/discover` on the
 * session's own process instead of spawning a short-lived sibling first: a stdio server then starts once, not
 * twice (a server's start can be expensive, and its side effects happen twice otherwise). The one server that pays
 * is a legacy one that EXITS on the unknown probe: {@link exitedOnItsOwn} lets the caller start it once more and go
 * straight to the `initialize` handshake.
 */
export interface InPlaceStdioTransport extends StdioClientTransport {
  /** True once the process ended before anyone closed the transport (it exited, it was not stopped). */
  readonly exitedOnItsOwn: boolean;
}

let subclass: Promise<new (params: StdioServerParameters) => InPlaceStdioTransport> | undefined;

/** Opens (not starts) an {@link InPlaceStdioTransport}; the stdio module is imported on first use. */
export async function createInPlaceStdioTransport(
  params: StdioServerParameters,
): Promise<InPlaceStdioTransport> {
  subclass ??= import('@modelcontextprotocol/client/stdio').then(({ StdioClientTransport: Base }) => {
    // Any subclass makes the SDK probe in place: it reaps siblings only for the exact base class, whose prototype
    // owns the internal `_dispose`.
    return class InPlace extends Base implements InPlaceStdioTransport {
      private started = false;
      private exited = false;
      get exitedOnItsOwn(): boolean {
        return this.exited;
      }
      override async start(): Promise<void> {
        await super.start();
        this.started = true;
      }
      override async close(): Promise<void> {
        // `pid` is null once the child's `close` event has run: a started process gone before the first close()
        // ended by itself. (The SDK closes the transport itself when the probe sees the process go.)
        if (this.started && !this.exited && this.pid === null) this.exited = true;
        this.started = false;
        await super.close();
      }
    };
  });
  const InPlace = await subclass;
  return new InPlace(params);
}
